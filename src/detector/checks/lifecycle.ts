// Data deleted later rather than now: retention or time-to-live shortened to (almost) nothing (`retention.ms=1`,
// `--retention-in-days 1`, `--default_table_expiration 1`, `--expire-days 1`, `expireAfterSeconds: 0`, `MODIFY TTL
// ... INTERVAL 0 DAY`), expiry switched on for an existing table, object-storage lifecycle rules that delete at once,
// a store's persistence turned off (`CONFIG SET save ""`), and an old snapshot restored over the current state
// (`consul snapshot restore`, `vault operator raft snapshot restore`). Also an HTTP write to an endpoint named for
// deleting data (`POST /logs-*/_delete_by_query`). Judged for every command but text tools. Pure.
import type { Argv } from '../engine/argv.js';
import type { RequestCheck } from '../programs/http/request.js';
import { show, type CheckContext } from './types.js';

/** Tools whose arguments are text or network probes, not settings of a data store. */
const TEXT_TOOLS = new Set(
  `echo printf cat grep egrep rg ag sed awk jq yq less more head tail diff tee git vim vi nano code man ping traceroute
  tracepath mtr nmap hping3 dig host nslookup ip iptables nft`.split(/\s+/),
);
/** Names of retention and expiry settings. */
const SETTING =
  /(retention|(^|[^a-z])ttl|expiration|expire[-_]?(days|after\w*)|expireaftersecond|time[-_]?to[-_]?live|keep[-_]?days|^age$)/i;

/** Is `value` of the setting `name` (almost) nothing: 0 or 1 of any unit, under an hour in ms or seconds? */
function tiny(name: string, value: string): boolean {
  const m = /^["']?(\d+(?:\.\d+)?)\s*([a-z]*)["']?$/i.exec(value.trim());
  if (!m) return false;
  const n = Number(m[1]);
  // A bare TTL is also a token's, lease's or record's lifetime: only zero says the data goes at once.
  if (/(^|[^a-z])ttl$/i.test(name)) return n === 0;
  if (/ms$|millis/i.test(name) || m[2] === 'ms') return n < 3_600_000;
  if (/seconds?$|secs?$/i.test(name) || m[2] === 's') return n < 3600;
  return n <= 1;
}

/** `name=value`, `--name value`, `"name": value`, `name: value` pairs in the arguments. */
function settings(args: string[]): [string, string][] {
  const out: [string, string][] = [];
  args.forEach((t, i) => {
    for (const m of t.matchAll(/([\w.-]+)["']?\s*[=:]\s*["']?([\w.]+)/g)) out.push([m[1]!, m[2]!]);
    if (/^--?[\w.-]+$/.test(t) && args[i + 1] !== undefined) out.push([t.replace(/^-+/, ''), args[i + 1]!]);
  });
  return out;
}

export function checkLifecycle(cmd: Argv, ctx: CheckContext): void {
  if (!cmd.name || TEXT_TOOLS.has(cmd.name)) return;
  const args = cmd.args.map((a) => a.text);
  const all = args.join(' ');
  // Every reading below needs one of these words: most commands have none, and are done here.
  if (!/ttl|expir|retention|live|keep|age|delete|config|snapshot/i.test(all)) return;
  const report = (why: string): void => ctx.add('data-lifecycle', `${show(cmd)} (${why})`);
  const short = settings(args).find(([name, value]) => SETTING.test(name) && tiny(name, value));
  if (short) report(`${short[0]} set to ${short[1]}`);
  else if (/\bTTL\b[^;]*\bINTERVAL\s+[01]\s+\w+|\bTTL\b[^;]*toInterval\w*\(\s*[01]\s*\)/i.test(all))
    report('a time-to-live of nothing');
  else if (/update-time-to-live\b/.test(all) && /Enabled\s*=\s*true|"Enabled"\s*:\s*true/i.test(all))
    report('expiry switched on for existing items');
  else if (/"?Expiration"?\s*:\s*\{[^}]*"?Days"?\s*:\s*[01]\b/i.test(all)) report('objects expire at once');
  else if (/"(type|action)"\s*:\s*"?Delete"?/i.test(all) && /"age"\s*:\s*[01]\b|"Days"\s*:\s*[01]\b/.test(all))
    report('a lifecycle rule that deletes at once');
  else if (/\bCONFIG\s+SET\s+(save(\s*$|\s+(""|''|\s))|appendonly\s+no\b)/i.test(all))
    report("the store's persistence turned off");
  else if (/\bsnapshot\s+restore\b/.test(all)) report('an old snapshot restored over the current state');
}

/** An HTTP write to an endpoint named for deleting data (`POST /logs/_delete_by_query`). */
export const deleteEndpointRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const url =
    req.writes && req.urls.find((a) => /[/_](_delete_by_query|delete[_-]series|purge|truncate|wipe)\b/i.test(a));
  if (url) ctx.add('resource-delete', `${show(cmd)} (${url})`);
};
