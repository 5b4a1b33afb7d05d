// The `terminal.docker` config section: image, daemon socket and the container's limits. Worker-only (reads DOCKER_HOST).
import { z } from 'zod';

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Docker's own memory notation: a number of bytes, or "512m", "1g", "1.5g" (binary units, like `docker run -m`). */
export function parseMemory(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([bkmgt]?)i?b?\s*$/i.exec(value);
  const unit = UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match?.[1] || unit === undefined) throw new Error(`not a memory size: "${value}" (use e.g. 512m or 2g)`);
  return Math.floor(Number(match[1]) * unit);
}

/** The daemon socket: DOCKER_HOST when it names a unix socket, else Docker's default. */
export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  const host = env.DOCKER_HOST;
  if (host?.startsWith('unix://')) return host.slice('unix://'.length);
  return '/var/run/docker.sock';
}

const memory = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  try {
    const bytes = parseMemory(value);
    // Docker refuses limits under 6 MiB with an error that does not name the setting.
    if (bytes >= 6 * 1024 ** 2) return bytes;
    ctx.addIssue({ code: 'custom', message: 'memory must be at least 6m' });
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
  return z.NEVER;
});

/**
 * The same keys as the local sandbox's `terminal.local.sandbox.limits` (pids, memory, cpus), mapped onto the
 * container's own limits; each given here wins over the older `pids_limit`, `memory` and `cpus`.
 */
const limits = z.strictObject(
  {
    pids: z.number().int().positive().optional(),
    memory: memory.optional(),
    cpus: z.number().positive().optional(),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? 'a mapping with pids, memory and cpus' : undefined) },
);

const dockerObject = z.strictObject({
  /** Must exist in the daemon unless `pull` is true. */
  image: z.string().min(1).default('debian:bookworm-slim'),
  /** Pull a missing image from its registry at start. Off by default: a run never downloads behind one's back. */
  pull: z.boolean().default(false),
  socket_path: z
    .string()
    .min(1)
    .default(() => defaultSocketPath()),
  /** Docker network mode; `none` leaves only loopback. */
  network: z.string().min(1).default('none'),
  /**
   * With network none: the outside through tether's egress proxy, host by host (the policy of
   * terminal.local.sandbox.egress; a host in neither list asks the run). Needs the worker to run as root.
   */
  egress: z.boolean().default(false),
  /** Memory limit in bytes after parsing (swap gets no more than this). */
  memory: memory.default(1024 ** 3),
  cpus: z.number().positive().default(1),
  pids_limit: z.number().int().positive().default(256),
  cap_drop: z.array(z.string().min(1)).default(['ALL']),
  cap_add: z.array(z.string().min(1)).default([]),
  /** Bind-mount the run's host working directory at `workdir`. */
  mount_cwd: z.boolean().default(false),
  workdir: z
    .string()
    .default('/workspace')
    .refine((dir) => dir.startsWith('/'), 'workdir must be an absolute path inside the container'),
  env: z.record(z.string(), z.string()).default({}),
  /** Read-only root file system; /tmp and `workdir` (unless mounted) become tmpfs. */
  read_only: z.boolean().default(false),
  /** User to run as ("uid:gid" or a name the image knows); the image's default when absent. */
  user: z.string().min(1).optional(),
  limits: limits.optional(),
});

export const dockerSettings = dockerObject.transform(({ limits: l, ...s }) => ({
  ...s,
  memory: l?.memory ?? s.memory,
  cpus: l?.cpus ?? s.cpus,
  pids_limit: l?.pids ?? s.pids_limit,
}));

export type DockerSettings = z.output<typeof dockerSettings>;
