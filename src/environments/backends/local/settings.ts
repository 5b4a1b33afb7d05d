// The `terminal.local` config section (the bubblewrap sandbox, on by default on Linux) and its start-up check:
// a missing bwrap stops the worker with a message naming the package; a sandbox turned off is a warning. Worker-only.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { TetherError } from '../../../common/errors.js';
import { controlPlanePaths } from './control-plane.js';

const SHAPE = 'off, on, or a mapping with enabled, network, writable, hidden and bwrap';

const writablePath = z
  .string()
  .min(1)
  .transform((p) => (p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : p))
  .refine((p) => isAbsolute(p), 'an absolute path (or one starting with ~/)');

const SandboxObject = z.strictObject(
  {
    /** false: commands run with the worker's own access to this machine (a warning at worker start). */
    enabled: z.boolean().default(true),
    /** false: commands get a network namespace of their own with only loopback. */
    network: z.boolean().default(true),
    /** Paths writable besides the task's working directory and the sandbox's private /tmp. */
    writable: z.array(writablePath).default([]),
    /** Paths commands cannot read (an empty directory or file in their place), e.g. ~/.ssh, ~/.aws. */
    hidden: z.array(writablePath).default([]),
    /** The bwrap binary; default: TETHER_BWRAP, else `bwrap` on PATH. */
    bwrap: z.string().min(1).optional(),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? SHAPE : undefined) },
);

/** `sandbox: off` / `on` (or false / true) are short for `{enabled: false}` / `{enabled: true}`. */
const Sandbox = z.preprocess((v) => {
  if (v === undefined || v === 'on' || v === true) return {};
  if (v === 'off' || v === false) return { enabled: false };
  return v;
}, SandboxObject);

export const LocalSettingsSchema = z.strictObject({ sandbox: Sandbox }).prefault({ sandbox: undefined });

export type LocalSettings = z.infer<typeof LocalSettingsSchema>;

/** What a sandboxed local transport needs: resolved from the settings. */
export interface SandboxSpec {
  bwrap: string;
  network: boolean;
  writable: string[];
  /** Shown empty inside: the configured `hidden` paths and tether's own secrets (src/environments/backends/local/control-plane.ts). */
  hidden: string[];
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The bwrap to run: the setting, TETHER_BWRAP, or `bwrap` on PATH; `found` false when it is not there. */
export function locateBwrap(
  setting: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { path: string; found: boolean } {
  const named = setting ?? env.TETHER_BWRAP;
  if (named) return { path: named, found: executable(named) };
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (dir && executable(join(dir, 'bwrap'))) return { path: join(dir, 'bwrap'), found: true };
  }
  return { path: 'bwrap', found: false };
}

/** A link's target (bwrap mounts over what the path names); a path that does not exist is kept, and skipped later. */
function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The sandbox the local backend uses, or undefined when it is off or this is not Linux. */
export function sandboxSpec(settings: LocalSettings): SandboxSpec | undefined {
  const s = settings.sandbox;
  if (!s.enabled || platform() !== 'linux') return undefined;
  return {
    bwrap: locateBwrap(s.bwrap).path,
    network: s.network,
    writable: s.writable,
    hidden: [...new Set([...controlPlanePaths(), ...s.hidden].map(realPath))],
  };
}

/**
 * Checked once when the worker starts. Throws a one-line configuration error (bwrap missing or unable to make a
 * sandbox here, a writable path that does not exist); returns warnings (the sandbox off, or not Linux).
 */
export function checkLocalSettings(settings: LocalSettings): string[] {
  const s = settings.sandbox;
  if (!s.enabled)
    return [
      "terminal.local.sandbox is off: local commands run unsandboxed, with the worker's full access to this machine",
    ];
  if (platform() !== 'linux') {
    return [
      `terminal.local.sandbox: the sandbox needs Linux (bubblewrap); on ${platform()} local commands run unsandboxed (set terminal.local.sandbox: off to silence this)`,
    ];
  }
  const bwrap = locateBwrap(s.bwrap);
  if (!bwrap.found) {
    const where = s.bwrap
      ? `terminal.local.sandbox.bwrap is ${s.bwrap}`
      : process.env.TETHER_BWRAP
        ? `TETHER_BWRAP is ${process.env.TETHER_BWRAP}`
        : 'not on PATH';
    throw new TetherError(
      'Config.Invalid',
      `terminal.local.sandbox: bubblewrap (bwrap) not found (${where}); install the package 'bubblewrap' (Debian/Ubuntu: apt-get install bubblewrap), or set terminal.local.sandbox: off to run local commands unsandboxed`,
      false,
    );
  }
  for (const p of s.writable) {
    if (!existsSync(p))
      throw new TetherError('Config.Invalid', `terminal.local.sandbox.writable: ${p} does not exist`, false);
  }
  // Kernels or containers that forbid namespaces make bwrap fail on every command; say so now, once.
  const probe = spawnSync(
    bwrap.path,
    ['--ro-bind', '/', '/', '--unshare-pid', '--cap-drop', 'ALL', '--die-with-parent', 'true'],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`).trim().split('\n')[0];
    throw new TetherError(
      'Config.Invalid',
      `terminal.local.sandbox: ${bwrap.path} cannot make a sandbox on this machine (${why}); allow user namespaces, or set terminal.local.sandbox: off`,
      false,
    );
  }
  return [];
}
