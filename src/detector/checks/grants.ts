// Broad access granted by a resource CLI, by the shape of the argv: a granting verb (add, attach, put, create,
// bind, edit...) with a role, policy, ACL or visibility option whose value is an admin/owner role or public; new
// long-lived credentials for an identity (create-access-key, service-accounts keys create); an admin port (or every
// port) opened to every address. Pure.
import type { Argv } from '../engine/argv.js';
import { show, type CheckContext } from './types.js';
import { names } from '../engine/names.js';

const GRANTING = new Set(
  names(`add attach put set create grant authorize update edit bind assign share modify apply ch anonymous patch`),
);
const CREATING = new Set(['create', 'add', 'new', 'generate', 'issue', 'mint']);
const IDENTITY = new Set(['iam', 'service', 'accounts', 'account', 'sa', 'user', 'users', 'ad', 'sp', 'principal']);
/** Options whose value says who may do what. */
const ACCESS_OPT =
  /^--?[\w-]*(role|polic(y|ies)|acl|permission|access|grant|visibility|privacy|member|grantee|principal)[\w-]*$/i;
const BROAD =
  /^root$|^(sudo|superuser|cluster-admin)$|administrator|(^|[/:_-])(cluster-)?admin(istrator)?s?($|[/:_-])|(^|[/.])owners?$|roles\/(owner|editor)$|^\*$|^public(-read(-write)?)?$|^all(Authenticated)?Users$|FullControl|full[-_]access/i;
const EVERYWHERE = /(^|[=,:\s])(0\.0\.0\.0\/0|::\/0)(\b|$)/;
export const ADMIN_PORT =
  /(^|[^\d])(22|23|3389|2375|2376|5432|3306|1433|6379|27017|9200|5900|11211|2379|10250)($|[^\d])/;
/** The value names every port or protocol (-1, all, 0-65535). */
const ALL_PORTS = /^(-1|all|0-65535|1-65535)$|^(tcp|udp):(0-65535|1-65535)$/i;
const PORT_OPT = /^--?([\w-]*-)?(port|ports|allow|rules|protocol|destination-port-ranges?|from-port|to-port)$/i;

/** The words of a compound verb (`createAccessKey`, `add-iam-policy-binding`, `apps:destroy`), lower case. */
export const parts = (word: string, separators = /[-:_]/): string[] =>
  word
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(separators);

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

/** Policy text that allows anyone, or everything: a `*` principal, `*` actions on `*`, a vault path `*` or sudo. */
const BROAD_POLICY =
  /"Principal"\s*:\s*(\{\s*"AWS"\s*:\s*)?"\*"|"Action"\s*:\s*\[?\s*"\*(:\*)?"[\s\S]*"Resource"\s*:\s*\[?\s*"\*"|"Resource"\s*:\s*\[?\s*"\*"[\s\S]*"Action"\s*:\s*\[?\s*"\*(:\*)?"|\bpath\s+"\*"|capabilities\s*=\s*\[[^\]]*"(sudo|root)"/;
/** A public-access block switched off (`BlockPublicAcls=false`, `"RestrictPublicBuckets": false`). */
const UNBLOCKED = /\b"?(Block|Ignore|Restrict)Public\w*"?\s*[=:]\s*false\b/i;
/** A source option whose value is every address in a cloud's own words (`--source-address-prefixes '*'`). */
const SOURCE_OPT = /^--?[\w-]*(source|cidr|range|prefix)[\w-]*$/i;
const ANY_SOURCE = /^(\*|Internet|Any|0\.0\.0\.0\/0)$/i;

/** `NAME=VALUE` as an option and its value. */
const pair = (a: string): [string, string] => [`--${a.slice(0, a.indexOf('='))}`, a.slice(a.indexOf('=') + 1)];

/** `verbs` is the subcommand path the resource check found; `stdin` the text arriving on standard input. */
export function checkGrant(cmd: Argv, verbs: string[], ctx: CheckContext, stdin?: string): void {
  const why = grantReason(cmd, verbs, stdin);
  if (why !== undefined) ctx.add('access-grant', `${show(cmd)} (${why})`);
}

/** What the command opens to anyone or grants broadly, or undefined. */
function grantReason(cmd: Argv, verbs: string[], stdin: string | undefined): string | undefined {
  const args = cmd.args.map((a) => a.text);
  // gh api -X PUT .../collaborators/x -f permission=admin: an HTTP write is a granting verb, its fields are options.
  const method = args.find((a, i) => /^(-X|--method)$/.test(args[i - 1] ?? '') || /^(-X|--method=)\w+$/.test(a));
  const http = /(PUT|POST|PATCH)$/i.test(method ?? '');
  const words = verbs.flatMap((v) => parts(v));
  if (!http && !words.some((w) => GRANTING.has(w) || CREATING.has(w) || w === 'write')) return undefined;
  // Policies nested as escaped JSON strings (an SQS or SNS attribute) are read with the escapes taken out.
  const texts = [...args, stdin ?? ''].map((a) => a.replace(/\\/g, ''));
  if (texts.some((a) => BROAD_POLICY.test(a) || UNBLOCKED.test(a))) return 'a policy open to anyone or for everything';
  const fields = args.filter((a, i) => /^(-f|-F|--field|--raw-field)$/.test(args[i - 1] ?? '') && a.includes('='));
  // `vault write auth/.../users/x policies=root`: NAME=VALUE operands are options too.
  const pairs = args.filter((a) => /^[a-z][\w-]*=/.test(a));
  const opts = [...options(args), ...fields.map(pair), ...pairs.map(pair)];
  // Made reachable by anyone: `--publicly-accessible`, `--public-network-access Enabled`, a grant to allUsers
  // (`gsutil iam ch allUsers:objectViewer`), anonymous downloads (`mc anonymous set download`).
  const open =
    opts.find(
      ([o, v]) =>
        /^--(publicly-accessible|public-access|allow-blob-public-access|public-network-access|enable-public-access|make-public|public)$/.test(
          o,
        ) && !/^(false|disabled?|off|no|none|private)$/i.test(v),
    )?.[0] ??
    args.find((a, i) => /^(allUsers|allAuthenticatedUsers)(:|$)/.test(a) && args[i - 1] !== '-d') ??
    (words.includes('anonymous') || words.includes('policy')
      ? args.find((a) => /^(public|download|upload|public-read(-write)?)$/i.test(a))
      : undefined);
  if (open !== undefined) return `${open}: open to anyone`;
  const role = opts.find(([o, v]) => ACCESS_OPT.test(o) && v.split(',').some((x) => BROAD.test(x.trim())));
  if (role) return `${role[0]} ${role[1]}`;
  const key =
    ['keys', 'key', 'credential', 'credentials'].some((k) => words.includes(k)) ||
    (words.includes('login') && words.includes('profile'));
  if (key && words.some((w) => CREATING.has(w)) && words.some((w) => IDENTITY.has(w))) return 'new credentials';
  // A database or service's access list opened to every address (`--authorized-networks=0.0.0.0/0`): no port limits it.
  const list = opts.find(
    ([o, v]) =>
      /^--?[\w-]*(authorized-networks|allowed-ip|ip-allow|allowlist|trusted-sources)[\w-]*$/i.test(o) &&
      EVERYWHERE.test(v),
  );
  if (list) return `${list[0]} ${list[1]}`;
  if (!args.some((a) => EVERYWHERE.test(a)) && !opts.some(([o, v]) => SOURCE_OPT.test(o) && ANY_SOURCE.test(v)))
    return undefined;
  // gcloud --allow=tcp (a protocol without ports) allows every port of it.
  const ports = opts
    .filter(([o]) => PORT_OPT.test(o))
    .map(([o, v]) => (/^--(allow|rules)$/.test(o) && /^(tcp|udp)$/i.test(v) ? 'all' : v));
  const inline = args.filter((a) => /(FromPort|ToPort|IpProtocol)=/.test(a));
  if (
    ports.some(
      (p) =>
        ALL_PORTS.test(p) ||
        p
          .split(/[,;\s]/)
          .some((x) => ADMIN_PORT.test(x.replace(/^\w+:/, '')) || ALL_PORTS.test(x.replace(/^ports?:/, ''))),
    ) ||
    inline.some((a) => /(FromPort|ToPort)=(22|3389|0)\b|IpProtocol=-1/.test(a))
  )
    return 'open to every address';
  return undefined;
}
