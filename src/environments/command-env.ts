// The environment a command starts from: a short allowlist of the worker's variables, never its secrets, and the
// variables a person named in terminal.env_passthrough. Hermes strips provider keys and every *_KEY/*_SECRET/*_TOKEN
// from subprocesses; tether goes further and passes nothing it was not told to. Worker-only.

/** The worker's variables every local command gets: what a shell and its programs need to behave, nothing more. */
export const BASE_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
];

/** The locale categories (POSIX and glibc's): settings, never credentials. Any other LC_ name is not passed. */
const LOCALE_VARIABLES: readonly string[] = [
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_ADDRESS',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_NAME',
  'LC_PAPER',
  'LC_TELEPHONE',
];

/**
 * Names that look like a credential: what a person would not want a command to hold unless they said so. Used to
 * warn when such a name is passed through (it still is: naming it is the person's decision).
 */
export function looksLikeCredential(name: string): boolean {
  return /(KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|SESSION|COOKIE|PRIVATE|CERT)(_|$)/i.test(name);
}

/** The allowlisted part of `source`. */
export function baseEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (BASE_VARIABLES.includes(name) || LOCALE_VARIABLES.includes(name)) out[name] = value;
  }
  return out;
}

/** A passthrough entry: an exact name, or a prefix ending in `*` (`AWS_*`). */
function matches(entry: string, name: string): boolean {
  return entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : entry === name;
}

/** The variables of `source` that terminal.env_passthrough names (exact names or `PREFIX_*`). */
export function passthroughEnvironment(
  names: readonly string[],
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (names.length === 0) return out;
  for (const [name, value] of Object.entries(source))
    if (value !== undefined && names.some((e) => matches(e, name))) out[name] = value;
  return out;
}
