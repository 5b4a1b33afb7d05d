// The `terminal.daytona` config section and the check that credentials are there. Worker-only (reads DAYTONA_* variables).
import { z } from 'zod';

/** The SDK's own default endpoint, used when neither the setting nor DAYTONA_API_URL names one. */
const DAYTONA_DEFAULT_API_URL = 'https://app.daytona.io/api';

export const daytonaSettings = z
  .strictObject({
    api_url: z.url().default(() => process.env.DAYTONA_API_URL || DAYTONA_DEFAULT_API_URL),
    /** Region the sandboxes run in; the organisation's default when absent (DAYTONA_TARGET is read too). */
    target: z.string().min(1).optional(),
    /** A base image (e.g. "debian:bookworm-slim") the sandbox is built from. Exclusive with `snapshot`. */
    image: z.string().min(1).optional(),
    /** A Daytona snapshot to start from; the organisation's default snapshot when neither is set. */
    snapshot: z.string().min(1).optional(),
    /** Where commands start; the sandbox user's home directory when absent. */
    workdir: z
      .string()
      .refine((dir) => dir.startsWith('/'), 'workdir must be an absolute path inside the sandbox')
      .optional(),
    /** Daytona stops an idle sandbox after this many minutes (0 never); a crashed worker leaves no sandbox running long. */
    auto_stop_minutes: z.number().int().min(0).default(15),
    env: z.record(z.string(), z.string()).default({}),
    cpu: z.number().int().positive().optional(),
    memory_gib: z.number().int().positive().optional(),
  })
  .refine((s) => !(s.image && s.snapshot), { message: 'set either image or snapshot, not both', path: ['image'] })
  // The SDK sizes only sandboxes built from an image; a snapshot fixes its own resources.
  .refine((s) => s.image || (s.cpu === undefined && s.memory_gib === undefined), {
    message: 'cpu and memory_gib need image (a snapshot fixes its own resources)',
    path: ['cpu'],
  });

export type DaytonaSettings = z.output<typeof daytonaSettings>;

/** The API key comes only from the environment, so it never lands in a config file. */
export function daytonaApiKey(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.DAYTONA_API_KEY || undefined;
}

export function daytonaUnavailable(
  _settings: DaytonaSettings,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return daytonaApiKey(env) ? undefined : 'DAYTONA_API_KEY is not set';
}
