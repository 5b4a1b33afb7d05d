// The `terminal.modal` config section and the check for Modal credentials. Worker-only.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const modalSettings = z.strictObject({
  /** The Modal App the sandboxes belong to; created when missing. */
  app: z.string().min(1).default('tether'),
  /** A registry image Modal pulls and builds (`images.fromRegistry`). */
  image: z.string().min(1).default('python:3.12-slim'),
  /** The sandbox's lifetime: Modal ends it after this long even if tether dies without closing it. */
  timeout_seconds: z.number().int().positive().default(3600),
  /** CPU cores requested (fractions allowed). */
  cpu: z.number().positive().optional(),
  memory_mib: z.number().int().positive().optional(),
  /** Where commands start; the image's home for root. */
  workdir: z.string().startsWith('/').default('/root'),
  env: z.record(z.string(), z.string()).default({}),
});

export type ModalSettings = z.infer<typeof modalSettings>;

/** The SDK reads the same file: MODAL_CONFIG_PATH, else ~/.modal.toml. */
function configHasToken(env: NodeJS.ProcessEnv): boolean {
  const path = env['MODAL_CONFIG_PATH'] || join(homedir(), '.modal.toml');
  if (!existsSync(path)) return false;
  try {
    return /^\s*token_id\s*=/m.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
}

/** Why the SDK would have no credentials, or undefined when it has some. */
export function modalCredentialsMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env['MODAL_TOKEN_ID'] && env['MODAL_TOKEN_SECRET']) return undefined;
  if (env['MODAL_OAUTH_REFRESH_TOKEN'] && env['MODAL_OAUTH_CLIENT_ID']) return undefined;
  if (configHasToken(env)) return undefined;
  return 'MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are not set (or ~/.modal.toml)';
}
