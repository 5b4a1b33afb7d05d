// Hides secrets in command output: values of secret-named environment variables and well-known key formats.
// Workflow-safe (pure: the visibility memo uses it too).

/** Names whose values are secrets: *_API_KEY, *_TOKEN, *_SECRET, passwords and the like. */
const SECRET_NAME = /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)$/i;

/** Key formats recognisable on their own (values never set in an environment variable here). */
export const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g, // OpenAI / Anthropic style
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
];

/** Values shorter than this are not redacted: they would hide ordinary words. */
const MIN_SECRET_CHARS = 6;

function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The secret values among `envs` (later maps win), longest first so a value containing another is hidden whole. */
export function secretValues(
  ...envs: (Record<string, string | undefined> | undefined)[]
): { name: string; value: string }[] {
  const found = new Map<string, string>();
  for (const env of envs) {
    for (const [name, value] of Object.entries(env ?? {})) {
      if (value && value.length >= MIN_SECRET_CHARS && isSecretName(name)) found.set(value, name);
    }
  }
  return [...found.entries()].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}

/**
 * `NAME=value` or `NAME: value` where NAME is an upper-case secret name (a .env file, `env` output, YAML): the
 * value is hidden even when it is not in this process's environment. Upper case only, so code such as
 * `password: string` is left alone. The value stops at a quote, a backslash or white space, so
 * the rule works inside JSON text too.
 */
const SECRET_ASSIGNMENT =
  /\b([A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?))((?:\\?["'])?\s*[=:]\s*(?:\\?["'])?)([^\s"'\\]{6,})/g;

/** The upper-case names whose assigned values are secrets (SECRET_ASSIGNMENT's name), for other views to reuse. */
export const SECRET_ASSIGNMENT_NAME =
  '[A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)';

/**
 * The one redaction policy for everything a tool returns (terminal output, files, search hits, web pages, MCP
 * results, program output): secret-named variables' values, `SECRET_NAME=value` assignments and well-known key
 * formats. It works on plain text and on JSON text alike (a value is also looked for in its JSON-escaped form).
 * It cannot hide a secret that was transformed (base64, split, reversed, hashed).
 */
export function redactSecrets(text: string, secrets: { name: string; value: string }[]): string {
  let out = text;
  for (const { name, value } of secrets) {
    for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) {
      if (out.includes(form)) out = out.split(form).join(`[REDACTED ${name}]`);
    }
  }
  out = out.replace(SECRET_ASSIGNMENT, (whole, name: string, sep: string, value: string) =>
    value.startsWith('[REDACTED') ? whole : `${name}${sep}[REDACTED ${name}]`,
  );
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, '[REDACTED key]');
  return out;
}
