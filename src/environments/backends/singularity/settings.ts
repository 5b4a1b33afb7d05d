// The `terminal.singularity` config section and the lookup of the Apptainer/Singularity binary on PATH. Worker-only.
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { z } from 'zod';

/** The absolute path of `name` if it is an executable file on PATH (or an executable path itself). */
export function findOnPath(name: string, path = process.env['PATH'] ?? ''): string | undefined {
  const candidates = name.includes('/')
    ? [name]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return isAbsolute(candidate) ? candidate : join(process.cwd(), candidate);
    } catch {
      // Not here; try the next directory.
    }
  }
  return undefined;
}

export const singularitySettings = z.strictObject({
  /** Apptainer is the project's current name; `singularity` is the older (and SingularityCE's) binary. */
  binary: z
    .string()
    .min(1)
    .default(() => (findOnPath('apptainer') ? 'apptainer' : 'singularity')),
  /** A SIF file or a `docker://`, `library://`, `oras://` URI. Required; its absence is reported by unavailable(). */
  image: z.string().min(1).optional(),
  /** `src:dst[:opts]` bind mounts, as Apptainer's `--bind`. */
  bind: z.array(z.string().min(1)).default([]),
  /** Bind the run's working directory on the host at `workdir`. */
  mount_cwd: z.boolean().default(false),
  /** Where commands start inside the instance; defaults to the host cwd when mount_cwd, else /tmp. */
  workdir: z.string().startsWith('/').optional(),
  /** `--containall`: no host home, /tmp or environment leaks into the instance. */
  contain: z.boolean().default(true),
  /** `--writable-tmpfs`: a throw-away writable layer over the read-only image. */
  writable_tmpfs: z.boolean().default(true),
  env: z.record(z.string(), z.string()).default({}),
  /** Further flags for `instance start`, placed before the image. */
  extra_args: z.array(z.string()).default([]),
});

export type SingularitySettings = z.infer<typeof singularitySettings>;
