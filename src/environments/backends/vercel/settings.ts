// The `terminal.vercel_sandbox` config section and where its credentials come from. Worker-only (reads VERCEL_* variables).
import { z } from 'zod';

/** Where the SDK sends every request; it has no option or variable to change it. */
export const VERCEL_DEFAULT_API_URL = 'https://vercel.com/api';

export const vercelSettings = z.strictObject({
  /** The SDK's legacy runtimes (an image-backed sandbox is the SDK's newer way, not offered here yet). */
  runtime: z.enum(['node22', 'node24', 'node26', 'python3.13']).default('node22'),
  /** Vercel stops the sandbox after this long, so a crashed worker leaves nothing running for long. */
  timeout_seconds: z.number().int().positive().default(2700),
  vcpus: z.number().int().positive().optional(),
  workdir: z
    .string()
    .default('/vercel/sandbox')
    .refine((dir) => dir.startsWith('/'), 'workdir must be an absolute path inside the sandbox'),
  env: z.record(z.string(), z.string()).default({}),
});

export type VercelSettings = z.output<typeof vercelSettings>;

export interface VercelCredentials {
  token: string;
  teamId: string;
  projectId: string;
}

/**
 * An access token with its team and project, or undefined when only an OIDC token is there (the SDK reads
 * VERCEL_OIDC_TOKEN itself and refreshes it).
 */
export function vercelCredentials(env: NodeJS.ProcessEnv = process.env): VercelCredentials | undefined {
  const { VERCEL_TOKEN: token, VERCEL_TEAM_ID: teamId, VERCEL_PROJECT_ID: projectId } = env;
  return token && teamId && projectId ? { token, teamId, projectId } : undefined;
}

export function vercelUnavailable(_settings: VercelSettings, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (vercelCredentials(env) || env.VERCEL_OIDC_TOKEN) return undefined;
  return 'VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID (or VERCEL_OIDC_TOKEN) are not set';
}
