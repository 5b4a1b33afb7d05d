// Hides secrets in command output: values of secret-named environment variables and well-known key formats. Worker-only.

/** Names whose values are secrets: *_API_KEY, *_TOKEN, *_SECRET, passwords and the like. */
const SECRET_NAME = /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)$/i;

/** Key formats recognisable on their own (values never set in an environment variable here). */
const KEY_PATTERNS: RegExp[] = [
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}/g, // OpenAI / Anthropic style
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
];

/** Values shorter than this are not redacted: they would hide ordinary words. */
const MIN_SECRET_CHARS = 6;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The secret values among `envs` (later maps win), longest first so a value containing another is hidden whole. */
export function secretValues(...envs: (Record<string, string | undefined> | undefined)[]): { name: string; value: string }[] {
  const found = new Map<string, string>();
  for (const env of envs) {
    for (const [name, value] of Object.entries(env ?? {})) {
      if (value && value.length >= MIN_SECRET_CHARS && isSecretName(name)) found.set(value, name);
    }
  }
  return [...found.entries()].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}

export function redactSecrets(text: string, secrets: { name: string; value: string }[]): string {
  let out = text;
  for (const { name, value } of secrets) {
    if (out.includes(value)) out = out.split(value).join(`[REDACTED ${name}]`);
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, '[REDACTED key]');
  return out;
}
