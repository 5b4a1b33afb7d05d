// Tool settings that weaken transport security or redirect where code comes from, whichever way they are set:
// `git config` / `git -c`, `npm|pnpm|yarn|pip|conda|poetry|bundle|composer config`, and the variables those tools
// read (NODE_TLS_REJECT_UNAUTHORIZED, GIT_SSL_NO_VERIFY, npm_config_*, PIP_*). Pure.
import type { Word } from '../engine/words.js';
import { show, type CheckContext } from './types.js';
import { names } from '../engine/names.js';
import type { GitCheck } from '../programs/git/call.js';
import type { PackageCheck } from '../programs/packages/call.js';

const FALSE = /^(false|0|no|off)$/i;
const TRUE = /^(true|1|yes|on)$/i;

/** A registry, index or mirror on this machine, or a public registry's own address (setting the default back). */
const HARMLESS_SOURCE =
  /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)|^https?:\/\/(registry\.npmjs\.org|registry\.yarnpkg\.com|pypi\.org\/simple|files\.pythonhosted\.org|rubygems\.org|index\.crates\.io|proxy\.golang\.org)\/?$/i;

/**
 * A setting (`http.sslVerify false`, `strict-ssl=false`, `global.trusted-host h`) judged by its key's last part.
 * `projectOnly`: it is written into the project's own settings file (`--location=project`), where it is part of the
 * project's code and its diff; where packages come from is then the project's choice, not this machine's.
 */
export function configSetting(
  key: string,
  value: string,
  detail: string,
  ctx: CheckContext,
  projectOnly = false,
): void {
  const k = key.toLowerCase().replace(/_/g, '-');
  const last = k.split(/[.:]/).at(-1) ?? k;
  const v = value.trim().replace(/^["']|["']$/g, '');
  // Certificate checks off, another CA trusted, a host trusted without TLS.
  if (
    (/^(ssl-?verify|strict-?ssl|verify-?ssl|tls-?verify|check-?certificate|ssl-verify-?peer|secure-?http)$/.test(
      last,
    ) &&
      FALSE.test(v)) ||
    (/^(insecure|ssl-?no-?verify|disable-?ssl|allow-?insecure[\w-]*)$/.test(last) && TRUE.test(v)) ||
    /^(trusted-?host|sslcainfo|sslcapath|cafile|ca|sslbackend)$/.test(last)
  )
    ctx.add('security-posture', detail);
  // `safe.directory '*'`: git trusts repositories owned by anyone (their hooks and config run as this user).
  if (k === 'safe.directory' && v === '*') ctx.add('security-posture', detail);
  // Where sources and packages are fetched from: another URL, another registry or index, a proxy in the middle.
  if (
    /^(insteadof|pushinsteadof|registry|index-?url|extra-?index-?url|index|find-?links|proxy|https?-?proxy|npm-?registry-?server|mirror|source|channels?)$/.test(
      last,
    ) &&
    v !== '' &&
    !HARMLESS_SOURCE.test(v) &&
    !projectOnly &&
    // A conda channel named (`conda-forge`) is one of the channels' own host; only a URL is another.
    (!/^channels?$/.test(last) || /^\w+:\/\//.test(v))
  )
    ctx.add('source-redirect', detail);
  // A credential helper that is shell code (or a program in a shared directory) is handed every password git uses.
  if (/^credential(\..+)?\.helper$/.test(k) && /^(!|\/tmp\/|\/var\/tmp\/|\/dev\/shm\/)/.test(v)) {
    if (!/^!\s*(\S*\/)?(gh|glab)\s+auth\s+git-credential\b/.test(v)) ctx.add('git-hook', detail);
  }
}

/** Go's module settings (`go env -w`, or the variable): where modules come from, and their checksums checked. */
export function goSetting(key: string, value: string, detail: string, ctx: CheckContext): void {
  if (key === 'GOPROXY' && !/^(https:\/\/proxy\.golang\.org)?(,direct|\|direct)?$|^direct$|^off$/.test(value))
    ctx.add('source-redirect', detail);
  const insecure = key === 'GOFLAGS' && /-insecure/.test(value);
  if ((key === 'GOSUMDB' && value === 'off') || /^(GOINSECURE|GONOSUMDB|GONOSUMCHECK)$/.test(key) || insecure)
    ctx.add('security-posture', detail);
}

/** Variables that tools read as settings: TLS switches, and npm_config_KEY / PIP_KEY / YARN_KEY settings. */
export function settingVariable(name: string, value: Word, ctx: CheckContext): void {
  const detail = `${name}=${value.text}`;
  if (value.dynamic && value.text === '') return;
  const off = /^(NODE_TLS_REJECT_UNAUTHORIZED|PYTHONHTTPSVERIFY)$/.test(name) && value.text.trim() === '0';
  if (off || (/^(GIT_SSL_NO_VERIFY|CURL_INSECURE|HELM_INSECURE\w*)$/.test(name) && value.text !== ''))
    ctx.add('security-posture', detail);
  const m = /^(?:npm_config_|NPM_CONFIG_|PIP_|YARN_|POETRY_|UV_|CONDA_)(\w+)$/.exec(name);
  if (m) configSetting(m[1]!, value.text, detail, ctx);
  // As a variable, only what switches checks off or fetches without TLS (a company's module proxy is ordinary).
  if (/^GO(SUMDB|INSECURE|FLAGS)$/.test(name) || (name === 'GOPROXY' && /^http:\/\//.test(value.text)))
    goSetting(name, value.text, detail, ctx);
}

/** The KEY VALUE (or KEY=VALUE) after a `config [set]` subcommand. */
function keyValue(ops: string[]): [string, string] | undefined {
  const [key, value] = ops.slice(ops.findIndex((t) => t === 'set' || t === 'add') + 1);
  if (key === undefined) return undefined;
  const eq = key.indexOf('=');
  if (eq > 0) return [key.slice(0, eq), key.slice(eq + 1)];
  return value === undefined ? undefined : [key, value];
}

/** The package managers with a `config` subcommand that writes settings. */
const CONFIGURED = new Set(names('npm pnpm yarn pip pip3 conda mamba micromamba poetry bundle bundler composer uv'));

/**
 * `npm config set KEY VALUE` (or `npm set`), `pip config set global.KEY VALUE`, `conda config --set KEY VALUE`,
 * `poetry config KEY VALUE`, `gem sources --add URL`.
 */
export const packageSettings: PackageCheck = ({ path, words }, cmd, _io, ctx) => {
  if (cmd.name === 'gem' && path[0] === 'sources') {
    const at = words.findIndex((t) => t === '--add' || t === '-a');
    if (at >= 0 && words[at + 1] !== undefined) configSetting('source', words[at + 1]!, show(cmd), ctx);
  }
  // npm and its kin take any setting as an option: `npm install --strict-ssl=false x`.
  if (/^(npm|pnpm|yarn|bun)$/.test(cmd.name ?? ''))
    for (const w of words) {
      const m = /^--([\w-]*(ssl|tls|ca|cert|insecure)[\w-]*)=(.*)$/i.exec(w);
      if (m) configSetting(m[1]!, m[3]!, show(cmd), ctx);
    }
  if (!CONFIGURED.has(cmd.name ?? '') || !(path[0] === 'config' || (path[0] === 'set' && cmd.name !== 'poetry')))
    return;
  const ops = path[0] === 'set' ? path : path.slice(1);
  // `pip config get|list`, `npm config get|list|delete` read or remove: only a setting can weaken or redirect.
  if (ops.some((t) => /^(get|list|ls|delete|rm|unset|edit|debug|show)$/.test(t))) return;
  const l = words.findIndex((t) => t === '--location' || t.startsWith('--location='));
  const projectOnly = l >= 0 && (words[l] === '--location=project' || words[l + 1] === 'project');
  const kv = keyValue(ops);
  if (kv) configSetting(kv[0], kv[1], show(cmd), ctx, projectOnly);
};

/** `git -c http.sslVerify=false clone ...`, and `git config [--global] KEY VALUE`. */
export const gitSettings: GitCheck = ({ settings, configWrite }, cmd, _io, ctx) => {
  for (const s of [...settings, ...(configWrite ? [configWrite] : [])]) configSetting(s.key, s.value, show(cmd), ctx);
};
