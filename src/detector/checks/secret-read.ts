// Secrets read into the output: credential files printed (cat, head, jq, base64, grep, an archive to stdout),
// secret managers and cloud secret stores read, tokens printed (gh auth token, gcloud auth print-access-token),
// cluster secrets shown with their data, secret variables echoed. What a command prints is read by the model and kept
// in the run's history, where a prompt injection can reach it. Piped into a program that uses it (docker login
// --password-stdin), captured into a variable, or written to a file, it is not shown: that is judged by the
// exfiltration rules instead. Pure.
import type { Argv } from '../engine/argv.js';
import { isCredentialPath } from './exfil.js';
import { argvText, PRINTS_SECRET, SECRET_VAR } from './secret-sources.js';
import { shortened, show, type CheckContext, type Io } from './types.js';
import { sedCall } from '../programs/sed/call.js';

/** Programs that print the files they are given (or an encoding of them). */
const READERS = new Set(
  `cat tac head tail less more most bat batcat nl view strings od xxd hexdump base64 base32 basenc jq yq gojq grep egrep
  fgrep rg ag awk gawk mawk sed gsed cut sort uniq column paste fold fmt pr sqlite3 zcat gzcat`.split(/\s+/),
);

/** Credential paths whose content is settings, not secrets (`~/.aws/config`: profiles and regions). */
const NOT_SECRET =
  /(^|\/)\.aws\/config$|(^|\/)\.docker\/(daemon\.json|contexts|buildx|cli-plugins)|(^|\/)\.kube\/(cache|http-cache)|(^|\/)\.gnupg\/(gpg(-agent)?\.conf|pubring\.kbx|trustdb\.gpg)$|\.pub$/;

export const shownSecretPath = (path: string): boolean =>
  isCredentialPath(path.replace(/^["']|["']$/g, '')) && !NOT_SECRET.test(path);

/** Options that make a reader print no content: counts, names, a quiet test. */
const NO_CONTENT = /^(-[a-zA-Z]*[clLq][a-zA-Z]*|--(count|files-with(out)?-matches|quiet|silent))$/;

/** Commands that print a secret, beyond PRINTS_SECRET's (which also feeds the exfiltration rules). */
const TOKEN_PRINTERS = new RegExp(
  [
    String.raw`^(gh|glab)\s+auth\s+status\b.*\s(--show-token|-t)\b`,
    String.raw`^gcloud\s+(auth\s+(application-default\s+)?print-(access|identity)-token|secrets\s+versions\s+access|sql\s+generate-login-token)\b`,
    String.raw`^az\s+(acr\s+login\b.*--expose-token|storage\s+account\s+(keys\s+list|show-connection-string)|cosmosdb\s+keys\s+list|redis\s+list-keys|account\s+get-access-token)\b`,
    String.raw`^aws\s+(configure\s+(get\s+\S*(secret|token|key)|export-credentials)|codeartifact\s+get-authorization-token|rds\s+generate-db-auth-token|ecr-public\s+get-login-password)\b`,
    String.raw`^heroku\s+(auth:token|config(:get)?(\s|$))`,
    String.raw`^(doctl|fly|flyctl|vercel|netlify|railway)\s+(auth\s+)?token\b`,
    String.raw`^bw\s+(get|list\s+items|export)\b`,
    String.raw`^(pass|gopass)(\s+show)?\s+[\w./@-]+\s*$`,
    String.raw`^doppler\s+secrets(\s+(download|get))?\b`,
    String.raw`^infisical\s+(secrets|export)\b`,
    String.raw`^(chamber\s+(read|export|exec)|berglas\s+access|ansible-vault\s+(view|decrypt)|kwallet-query\b.*\s-r|keyring\s+get|secret-tool\s+lookup)\b`,
    String.raw`^docker-credential-\w+\s+(get|list)\b`,
    String.raw`^security\s+(find-(generic|internet)-password\b.*\s-[wg]\b|dump-keychain\b.*\s-d)`,
    String.raw`^terraform\s+(output\b.*\s-raw\b|state\s+pull\b)`,
    String.raw`^gpg2?\b.*--export-secret-(sub)?keys\b`,
  ].join('|'),
);

/** What in a command shows a secret, or undefined. */
function shownSecret(cmd: Argv, io: Io): string | undefined {
  const name = cmd.name!;
  const text = argvText(cmd).replace(/^\S*\//, '');
  // `grep -l`/`-c` print no lines; `sed -i` writes the file, not the terminal.
  const noContent =
    (/^(grep|egrep|fgrep|rg|ag)$/.test(name) && cmd.args.some((a) => NO_CONTENT.test(a.text))) ||
    (/^g?sed$/.test(name) && sedCall(cmd).inPlace);
  if (READERS.has(name) && !noContent) {
    const file = cmd.args.find((a) => !a.text.startsWith('-') && shownSecretPath(a.text));
    if (file) return file.text;
    if (io.stdinFile && shownSecretPath(io.stdinFile.text) && io.upstream.length === 0) return io.stdinFile.text;
  }
  // openssl rsa|pkey|ec|pkcs12|pkcs8 -in KEY prints the private key (unless only the public part or nothing).
  const keyCommand = /^(rsa|pkey|ec|pkcs12|pkcs8|dsa)$/.test(cmd.args[0]?.text ?? '');
  if (name === 'openssl' && keyCommand && !/\s-(noout|pubout|out)\b/.test(text)) {
    const input = cmd.args.find((a, i) => i > 0 && cmd.args[i - 1]!.text === '-in');
    if (input && shownSecretPath(input.text)) return input.text;
  }
  // An archive of credentials written to standard output (tar czf - ~/.ssh | base64).
  if ((name === 'tar' || name === 'bsdtar') && cmd.args.some((a) => /^-?[a-zA-Z]*c/.test(a.text)))
    if (
      /(^|\s)(-[a-zA-Z]*f\s+-|--file[= ]-)(\s|$)|(^|\s)-?c[a-zA-Z]*f\s+-(\s|$)/.test(text) ||
      !/(^|\s)-[a-zA-Z]*f|--file/.test(text)
    )
      if (cmd.args.some((a) => shownSecretPath(a.text) || /^(~|\$HOME)\/\.(ssh|aws|gnupg|kube)\/?$/.test(a.text)))
        return 'an archive of credentials';
  // find ~ -name '*.pem' -exec cat {} \;
  if (name === 'find') {
    const pattern = cmd.args.find((a, i) => i > 0 && /^-i?(name|path|wholename)$/.test(cmd.args[i - 1]!.text));
    const exec = cmd.args.findIndex((a) => /^-(exec|execdir|ok)$/.test(a.text));
    const reads = exec >= 0 && READERS.has(cmd.args[exec + 1]?.text.replace(/^.*\//, '') ?? '');
    if (pattern && reads && ['x', 'rsa', 'ed25519'].some((s) => shownSecretPath(pattern.text.replace(/\*/g, s))))
      return `files named ${pattern.text}`;
  }
  if (PRINTS_SECRET.test(text) && !notShowingSecret(cmd, text)) return text;
  if (TOKEN_PRINTERS.test(text)) return text;
  // echo "$GITHUB_TOKEN", printf '%s' "$AWS_SECRET_ACCESS_KEY", env | grep -i token.
  if ((name === 'echo' || name === 'printf' || name === 'print') && cmd.args.some((a) => SECRET_VAR.test(a.text)))
    return 'a secret variable';
  return undefined;
}

/** Reads that print no secret value: names only, a non-secret field, the redacted view. */
function notShowingSecret(cmd: Argv, text: string): boolean {
  if (/^(kubectl|oc)\b/.test(text))
    return (
      !/(\s-o\s*|\s--output[= ])(ya?ml|json|jsonpath|go-template|custom-columns)/.test(text) &&
      !/config\s+view\b.*--raw/.test(text) &&
      !/\bcreate\s+token\b/.test(text)
    );
  if (/^vault\b/.test(text)) return /-field=(username|user|login|name|host|hostname|url|port|path|role)\b/.test(text);
  if (/^security\b/.test(text)) return !/\s-[wg]\b/.test(text);
  if (/^heroku\b/.test(text)) return /^heroku\s+config:(set|unset|add|remove)\b/.test(text);
  // Written to a file (`op read -o f`, `sops -d --output f`, `gpg -o f`); for cloud CLIs --output is a format.
  return /^(op|sops|gpg2?|bw)\b/.test(text) && cmd.args.some((a) => /^(-o|--output|--out-file)(=|$)/.test(a.text));
}

/** Judges whether the command shows a secret in its output. */
export function checkSecretRead(cmd: Argv, io: Io, ctx: CheckContext): void {
  if (cmd.name === null || io.output === 'consumed') return;
  // `env | grep -i token`: the whole environment filtered for secrets.
  const fromEnv = /^(env|printenv|set|export)$/.test(io.upstream.at(-1)?.argv?.name ?? '');
  const forSecrets = cmd.args.some((a) => /token|secret|passw|key|cred|auth/i.test(a.text));
  if (/^(grep|egrep|rg)$/.test(cmd.name) && fromEnv && forSecrets)
    return ctx.add('secret-read', `${show(cmd)} (secrets in the environment)`);
  const what = shownSecret(cmd, io);
  if (what !== undefined) ctx.add('secret-read', `${show(cmd)} (${shortened(what)})`);
}
