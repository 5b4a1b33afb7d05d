// Broad access granted by a resource CLI, by the shape of the argv: a granting verb (add, attach, put, create,
// bind, edit...) with a role, policy, ACL or visibility option whose value is an admin/owner role or public; new
// long-lived credentials for an identity (create-access-key, service-accounts keys create); an admin port (or every
// port) opened to every address. Pure.
import type { Argv } from '../argv.js';
import { show, type CheckContext } from './types.js';

const GRANTING = new Set([
  'add',
  'attach',
  'put',
  'set',
  'create',
  'grant',
  'authorize',
  'update',
  'edit',
  'bind',
  'assign',
  'share',
  'modify',
  'apply',
]);
const CREATING = new Set(['create', 'add', 'new', 'generate', 'issue', 'mint']);
const IDENTITY = new Set(['iam', 'service', 'accounts', 'account', 'sa', 'user', 'users', 'ad', 'sp', 'principal']);
/** Options whose value says who may do what. */
const ACCESS_OPT =
  /^--?[\w-]*(role|policy|acl|permission|access|grant|visibility|privacy|member|grantee|principal)[\w-]*$/i;
const BROAD =
  /administrator|(^|[/:_-])(cluster-)?admin(istrator)?s?($|[/:_-])|(^|[/.])owners?$|roles\/(owner|editor)$|^\*$|^public(-read(-write)?)?$|^all(Authenticated)?Users$|FullControl|full[-_]access/i;
const EVERYWHERE = /(^|[=,\s])(0\.0\.0\.0\/0|::\/0)(\b|$)/;
export const ADMIN_PORT =
  /(^|[^\d])(22|23|3389|2375|2376|5432|3306|1433|6379|27017|9200|5900|11211|2379|10250)($|[^\d])/;
/** The value names every port or protocol (-1, all, 0-65535). */
const ALL_PORTS = /^(-1|all|0-65535|1-65535)$|^(tcp|udp):(0-65535|1-65535)$/i;
const PORT_OPT = /^--?([\w-]*-)?(port|ports|allow|rules|protocol|destination-port-ranges?|from-port|to-port)$/i;

const parts = (word: string): string[] =>
  word
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[-:_]/);

/** Option name and value pairs of an argv (`--opt value`, `--opt=value`). */
function options(args: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!;
    if (!t.startsWith('-')) continue;
    const eq = t.indexOf('=');
    if (eq >= 0) out.push([t.slice(0, eq), t.slice(eq + 1)]);
    else if (args[i + 1] !== undefined && !args[i + 1]!.startsWith('-')) out.push([t, args[i + 1]!]);
    else out.push([t, '']);
  }
  return out;
}

/** `verbs` is the subcommand path the resource check found. */
export function checkGrant(cmd: Argv, verbs: string[], ctx: CheckContext): void {
  const words = verbs.flatMap(parts);
  if (!words.some((w) => GRANTING.has(w) || CREATING.has(w))) return;
  const args = cmd.args.map((a) => a.text);
  const opts = options(args);
  const role = opts.find(([o, v]) => ACCESS_OPT.test(o) && v.split(',').some((x) => BROAD.test(x.trim())));
  if (role) {
    ctx.add('access-grant', `${show(cmd)} (${role[0]} ${role[1]})`);
    return;
  }
  const key =
    words.includes('keys') || words.includes('key') || words.includes('credential') || words.includes('credentials');
  if (key && words.some((w) => CREATING.has(w)) && words.some((w) => IDENTITY.has(w))) {
    ctx.add('access-grant', `${show(cmd)} (new credentials)`);
    return;
  }
  if (!args.some((a) => EVERYWHERE.test(a))) return;
  // gcloud --allow=tcp (a protocol without ports) allows every port of it.
  const ports = opts
    .filter(([o]) => PORT_OPT.test(o))
    .map(([o, v]) => (/^--(allow|rules)$/.test(o) && /^(tcp|udp)$/i.test(v) ? 'all' : v));
  const inline = args.filter((a) => /(FromPort|ToPort|IpProtocol)=/.test(a));
  if (
    ports.some((p) => ALL_PORTS.test(p) || p.split(/[,;]/).some((x) => ADMIN_PORT.test(x.replace(/^\w+:/, '')))) ||
    inline.some((a) => /(FromPort|ToPort)=(22|3389|0)\b|IpProtocol=-1/.test(a))
  )
    ctx.add('access-grant', `${show(cmd)} (open to every address)`);
}
