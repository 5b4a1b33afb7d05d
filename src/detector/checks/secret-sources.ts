// What exfiltration carries and where it goes, beyond credential files: commands that print secrets (secret
// managers, cloud secret stores, keychains, the instance metadata service), bulk sources (the home directory, /etc,
// database dumps, a bundle of every ref), and anonymous drop services that only exist to receive uploads. Pure.
import { keyTable } from '../engine/names.js';
import type { Argv } from '../engine/argv.js';
import { show, type CheckContext } from './types.js';

/**
 * Command text that prints a secret: a secret store's read verb, a keychain, session credentials, the cloud
 * instance metadata service, a secret variable printed by name. Tested on an upstream command or a substitution.
 */
export const PRINTS_SECRET = new RegExp(
  [
    String.raw`\bvault\s+(kv\s+get|read)\b`,
    String.raw`\bop\s+(read|inject|(item|document)\s+get)\b`,
    String.raw`\b(pass|gopass)\s+(show|cat)\b`,
    String.raw`\b(bw|rbw)\s+get\b`,
    String.raw`\blpass\s+show\b`,
    String.raw`\bkeepassxc-cli\s+show\b`,
    String.raw`\bsecretsmanager\s+get-secret-value\b`,
    String.raw`\bssm\s+get-parameters?(-by-path)?\b.*--with-decryption`,
    String.raw`\bsts\s+(get-session-token|assume-role[\w-]*|get-federation-token)\b`,
    String.raw`\becr\s+get-login-password\b`,
    String.raw`\bsecrets\s+versions\s+access\b`,
    String.raw`\bkeyvault\s+secret\s+(show|download)\b`,
    String.raw`\bget-access-token\b`,
    String.raw`\bdoppler\s+secrets\b`,
    String.raw`\b(kubectl|oc)\b.*\bget\s+secrets?\b`,
    String.raw`\b(kubectl|oc)\b.*\bconfig\s+view\b.*--raw`,
    String.raw`\bcreate\s+token\b`,
    String.raw`\bsecurity\s+(find-(generic|internet)-password|dump-keychain|export)\b`,
    String.raw`\bsops\s+(-d|--decrypt|decrypt)\b`,
    String.raw`\b(gh|glab)\s+auth\s+token\b`,
    String.raw`\bgit\s+credential\s+fill\b`,
    String.raw`\bdocker-credential-\w+\s+get\b`,
    String.raw`\bheroku\s+config\b`,
    String.raw`\b169\.254\.169\.254\b|\bmetadata\.google\.internal\b|\b100\.100\.100\.200\b|\[?fd00:ec2::254\]?`,
    String.raw`\bprintenv\s+[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)`,
  ].join('|'),
);

/** The text of an argv as a command line (for the patterns above). */
export const argvText = (a: Argv): string => [a.written, ...a.args.map((w) => w.text)].join(' ');

/** Does this command print secrets? */
export const printsSecret = (a: Argv): boolean => a.name !== null && PRINTS_SECRET.test(argvText(a));

/** Directories whose whole content is private: the home directory, the root's, /etc, the file system. */
const PRIVATE_TREE = /^(~|\$HOME|\$\{HOME\}|\/home\/[^/]+|\/Users\/[^/]+|\/root|\/etc|\/)\/*$/;
export const isPrivateTree = (path: string): boolean => PRIVATE_TREE.test(path);

/** Database dumps and a bundle of every ref: a whole data set or repository on standard output or in a file. */
export function dumpsData(a: Argv): boolean {
  if (a.name === null) return false;
  if (/^(pg_dump|pg_dumpall|mysqldump|mariadb-dump|mongodump|mongoexport|cockroach)$/.test(a.name)) {
    // A schema alone is structure, not data.
    return !a.args.some((w) => /^(-s|--schema-only|--no-data|-d)$/.test(w.text) && a.name !== 'mongodump');
  }
  const w = a.args.map((x) => x.text);
  if (a.name === 'redis-cli') return w.includes('--rdb');
  if (a.name === 'sqlite3') return w.includes('.dump');
  if (a.name === 'git') return w[0] === 'bundle' && w[1] === 'create' && w.includes('--all');
  return false;
}

/** Services that exist to receive anonymous uploads (file drops, paste bins, request catchers). */
const DROP_HOST =
  /^(https?:\/\/)?([\w-]+\.)*(0x0\.st|transfer\.sh|file\.io|termbin\.com|ix\.io|sprunge\.us|paste\.rs|catbox\.moe|litterbox\.catbox\.moe|temp\.sh|bashupload\.com|oshi\.at|gofile\.io|anonfiles\.com|pastebin\.com|hastebin\.com|dpaste\.com|dpaste\.org|webhook\.site|requestbin\.(com|net)|pipedream\.net|beeceptor\.com|ngrok\.io|ngrok-free\.app|interact\.sh|oast\.(fun|live|me|pro|site|online)|burpcollaborator\.net|canarytokens\.com|keep\.sh|uguu\.se|tmpfiles\.org)(:\d+)?(\/|$)/i;
export const isDropHost = (url: string): boolean => DROP_HOST.test(url);

/** Environment variables that hold secrets. */
export const SECRET_VAR =
  /\$\{?[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*\}?/;

/** The vendor a secret variable belongs to, from its first word (GITHUB_TOKEN: github); generic words say nothing. */
const VENDOR_ALIASES = keyTable<string>({
  gh: 'github',
  gl: 'gitlab',
  cf: 'cloudflare',
  hf: 'huggingface',
  do: 'digitalocean',
  az: 'azure',
  'jira confluence': 'atlassian',
  aws: 'amazonaws',
  'gcp google': 'googleapis',
});
const GENERIC_PREFIX =
  /^(api|app|auth|access|secret|private|my|the|prod|production|dev|staging|test|ci|bot|service|client|admin|user|bearer|id|session|master|root|db|database|personal|read|write|deploy)$/;

/**
 * `-H "X-Token: $GITHUB_TOKEN"` sent to a host that is not GitHub's: a vendor's token goes to its vendor (api.github.com,
 * api.stripe.com), to this machine, or to a private name; anywhere else it is handed to a stranger.
 */
export function foreignToken(cmd: Argv, urls: string[], ctx: CheckContext): void {
  const hosts = urls.map((u) => /^(?:https?:\/\/)?(?:[^@/]*@)?([^/:?#]+)/i.exec(u)?.[1]?.toLowerCase() ?? '');
  if (hosts.length === 0) return;
  for (const a of cmd.args) {
    for (const m of a.text.matchAll(new RegExp(SECRET_VAR.source, 'g'))) {
      const first = m[0]
        .replace(/^\$\{?/, '')
        .split('_')[0]!
        .toLowerCase();
      if (first.length < 2 || GENERIC_PREFIX.test(first) || SECRET_VAR.test(`$${first.toUpperCase()}`)) continue;
      const vendor = VENDOR_ALIASES[first] ?? first;
      const foreign = hosts.some(
        (h) =>
          h !== '' && !h.includes(vendor) && !LOCAL_HOST.test(h) && !/\.(internal|local|lan|corp|svc)$|^[^.]+$/.test(h),
      );
      if (foreign) return ctx.add('exfiltration', `${show(cmd)} (${m[0]} sent to another host)`);
    }
  }
}

const LOCAL_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?|0\.0\.0\.0|host\.docker\.internal)$/;

/** A URL of this machine (`http://localhost:3000/x`, `http://127.0.0.1/`), or a local file (`file:///tmp/x`). */
export const isLocalUrl = (url: string): boolean =>
  /^file:\/\//i.test(url) || LOCAL_HOST.test(/^\w+:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^/:?#]+)/.exec(url)?.[1] ?? '');
