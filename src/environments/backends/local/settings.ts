// The `terminal.local` config section (the bubblewrap sandbox, on by default on Linux) and its start-up check:
// a missing bwrap stops the worker with a message naming the package; a sandbox turned off is a warning. Worker-only.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { homedir, platform, tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { TetherError } from '../../../common/errors.js';
import { controlPlanePaths } from './control-plane.js';
import { defaultHiddenPaths } from './credential-paths.js';
import { commandFilterFile } from './seccomp.js';
import { TaskNetwork, type TaskNetworkTools } from './task-network.js';
import { EgressSchema } from '../../egress/settings.js';
import { listenInside } from '../../egress/listener.js';
import { applyProtected, resolveProtected, type ProtectedEntry } from '../../../common/protected-paths.js';
import { configureLimits, LimitsSchema } from './limits.js';
import { TaskView, type HiddenPath, type HiddenWhy } from '../../task-view.js';

const SHAPE =
  'off, on, or a mapping with enabled, network, egress, writable, hidden, expose, protected, limits and bwrap';

const writablePath = z
  .string()
  .min(1)
  .transform((p) => (p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : p))
  .refine((p) => isAbsolute(p), 'an absolute path (or one starting with ~/)');

const SandboxObject = z.strictObject(
  {
    /** false: commands run with the worker's own access to this machine (a warning at worker start). */
    enabled: z.boolean().default(true),
    /**
     * proxy (default; true means it too): no route out, only tether's egress proxy, host by host (egress below);
     * false: only the task's own loopback; direct: the outside network without this machine's loopback
     * (slirp4netns, every host, nobody asked); host: this machine's network as it is, its loopback included.
     */
    network: z
      .union([z.boolean(), z.enum(['proxy', 'direct', 'host'])], { error: () => 'proxy, direct, host or false' })
      .default('proxy')
      .transform((v): NetworkMode => (v === true ? 'proxy' : v)),
    /** Which hosts the proxy reaches without asking, which never (see src/environments/egress/settings.ts). */
    egress: EgressSchema,
    /** Paths writable besides the task's working directory and the sandbox's private /tmp. */
    writable: z.array(writablePath).default([]),
    /**
     * Paths commands cannot read (an empty directory or file in their place), besides tether's own secrets and the
     * credential locations hidden by default (credential-paths.ts: ~/.ssh, ~/.aws, ..., other agents' homes).
     */
    hidden: z.array(writablePath).default([]),
    /** Credential locations hidden by default that commands may read after all (a warning at worker start). */
    expose: z.array(writablePath).default([]),
    /**
     * Files other programs run or obey later, read-only to commands (src/common/protected-paths.ts has the
     * defaults): `PATH` adds one, `!PATH` removes one, relative to each project's top.
     */
    protected: z
      .array(z.string())
      .default([])
      .superRefine((items, ctx) => {
        for (const p of applyProtected(items).problems)
          ctx.addIssue({ code: 'custom', path: [p.index], message: p.message });
      }),
    /** Per task, for its shell, background processes, PTYs and execute_code together (limits.ts). */
    limits: LimitsSchema,
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

/** How a task's commands reach the network (see the `network` setting). */
export type NetworkMode = 'proxy' | 'direct' | 'host' | false;

export const LocalSettingsSchema = z.strictObject({ sandbox: Sandbox }).prefault({ sandbox: undefined });

export type LocalSettings = z.infer<typeof LocalSettingsSchema>;

/** What a sandboxed local transport needs: resolved from the settings. */
export interface SandboxSpec {
  bwrap: string;
  /** See the setting; all but host give each task a network namespace of its own (task-network.ts). */
  network: NetworkMode;
  /** Joins a task's network namespace. */
  nsenter: string;
  /** Gives it the outside network (network: direct). */
  slirp4netns: string;
  writable: string[];
  /** Shown empty inside: the configured `hidden` paths, tether's own secrets (control-plane.ts) and credential locations (credential-paths.ts). */
  hidden: string[];
  /** Read-only on top of a hidden directory that holds them (`expose` inside a hidden path). */
  exposed: string[];
  /** The seccomp filter file (seccomp.ts); undefined where tether has none for this architecture. */
  seccomp?: string;
  /** Held read-only at each project's top (protected-files.ts); none when absent. */
  protected?: readonly ProtectedEntry[];
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A program on PATH (or in /usr/sbin and /sbin, where nsenter may live); `found` false when it is not there. */
function locate(name: string, env: NodeJS.ProcessEnv = process.env): { path: string; found: boolean } {
  for (const dir of [...(env.PATH ?? '/usr/bin:/bin').split(delimiter), '/usr/sbin', '/sbin']) {
    if (dir && executable(join(dir, name))) return { path: join(dir, name), found: true };
  }
  return { path: name, found: false };
}

/** The bwrap to run: the setting, TETHER_BWRAP, or `bwrap` on PATH; `found` false when it is not there. */
export function locateBwrap(
  setting: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { path: string; found: boolean } {
  const named = setting ?? env.TETHER_BWRAP;
  if (named) return { path: named, found: executable(named) };
  return locate('bwrap', env);
}

/**
 * The path with links resolved (bwrap mounts over what the path names), or as given when it does not exist (yet):
 * such a path is kept, and skipped later.
 */
export function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Where every task's private /tmp lives on this machine (os.tmpdir()). At /tmp it is out of sight already (each
 * sandbox's own /tmp is mounted over it); anywhere else (TMPDIR=/var/tmp) it would show other tasks' /tmp
 * read-only, so it is hidden.
 */
function otherTasksTmp(): string[] {
  return realPath(tmpdir()) === '/tmp' ? [] : [tmpdir()];
}

/**
 * What the sandbox hides, each with why (real paths, first reason kept): tether's own secrets (control-plane.ts),
 * the credential locations (credential-paths.ts) but those exposed, other tasks' /tmp, and the configured `hidden`.
 * The one list both the sandbox and the file tools use (task-view.ts).
 */
export function hiddenPaths(settings: LocalSettings): HiddenPath[] {
  const s = settings.sandbox;
  const out = new Map<string, HiddenPath>();
  const add = (why: HiddenWhy, paths: readonly string[]): void => {
    for (const p of paths.map(realPath)) if (!out.has(p)) out.set(p, { path: p, why });
  };
  add('tether', controlPlanePaths());
  add('credentials', defaultHiddenPaths(s.expose));
  add('private-tmp', otherTasksTmp());
  add('configured', s.hidden);
  return [...out.values()];
}

/** The directories the sandbox mounts a fresh one of its own on (sandbox.ts bwrapArgs): the file tools reach none. */
const OWN_MOUNTS = ['/tmp', '/proc', '/dev', '/run', '/var/run'];

/**
 * What the task's tools and commands see: the sandbox's hidden paths, or with the sandbox off tether's own only; and
 * the protected files, on every backend.
 */
export function taskView(settings: LocalSettings): TaskView {
  const s = settings.sandbox;
  // The protected files hold whatever runs the commands: the file tools' gate asks about them on every backend.
  const prot = protectedEntries(settings);
  if (!s.enabled || platform() !== 'linux')
    return new TaskView(
      controlPlanePaths().map((p) => ({ path: realPath(p), why: 'tether' as const })),
      [],
      false,
      [],
      prot,
    );
  // Each task's commands have a /tmp, /proc, /dev and /run of their own (sandbox.ts mounts them): the machine's (the
  // worker's environment in /proc/self/environ, its descriptors, /dev/shm, daemons' files in /run) are not theirs.
  const own = OWN_MOUNTS.filter(existsSync).map((p) => ({ path: realPath(p), why: 'private-tmp' as const }));
  return new TaskView([...hiddenPaths(settings), ...own], s.expose.map(realPath), true, s.writable.map(realPath), prot);
}

/** The sandbox the local backend uses, or undefined when it is off or this is not Linux. */
export function sandboxSpec(settings: LocalSettings): SandboxSpec | undefined {
  const s = settings.sandbox;
  if (!s.enabled || platform() !== 'linux') return undefined;
  return {
    bwrap: locateBwrap(s.bwrap).path,
    network: s.network,
    nsenter: locate('nsenter').path,
    slirp4netns: locate('slirp4netns').path,
    writable: s.writable,
    hidden: hiddenPaths(settings).map((h) => h.path),
    exposed: s.expose.map(realPath),
    seccomp: commandFilterFile(),
    protected: protectedEntries(settings),
  };
}

const resolved = new WeakMap<readonly string[], ProtectedEntry[]>();

/** The protected paths in force (the defaults and the setting), whatever the backend: the file tools ask for them. */
export function protectedEntries(settings: LocalSettings): ProtectedEntry[] {
  const list = settings.sandbox.protected;
  let entries = resolved.get(list);
  if (!entries) resolved.set(list, (entries = resolveProtected(list)));
  return entries;
}

/**
 * The protected paths of a raw `terminal.local` section (the worker checked it at start); the defaults when it
 * cannot be read. For the file tools' gate, which asks about them whatever the backend.
 */
export function protectedPathsIn(section: unknown): ProtectedEntry[] {
  const parsed = LocalSettingsSchema.safeParse(section ?? {});
  return parsed.success ? protectedEntries(parsed.data) : resolveProtected([]);
}

/**
 * Checked once when the worker starts. Throws a one-line configuration error (bwrap missing or unable to make a
 * sandbox here, a writable path that does not exist, no task network); returns warnings (the sandbox off, not
 * Linux, or the host's network).
 */
export async function checkLocalSettings(settings: LocalSettings): Promise<string[]> {
  const s = settings.sandbox;
  const exposed = s.expose.map(
    (p) => `terminal.local.sandbox.expose: ${p} is readable by every sandboxed command (it holds credentials)`,
  );
  return [...exposed, ...(await checkSandbox(settings)), ...(await configureLimits(s.limits))];
}

async function checkSandbox(settings: LocalSettings): Promise<string[]> {
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
  if (s.network === 'host') {
    return [
      "terminal.local.sandbox.network is host: commands can reach every service on this machine's loopback, the Temporal server included",
    ];
  }
  await checkTaskNetwork(sandboxSpec(settings)!);
  if (s.network === 'direct')
    return [
      'terminal.local.sandbox.network is direct: commands reach every host on the network without asking (no egress proxy, no approvals for hosts)',
    ];
  return [];
}

/** A task network made and closed once, so a machine that cannot make one stops the worker now, with the reason. */
async function checkTaskNetwork(spec: SandboxSpec): Promise<void> {
  const way =
    spec.network === 'direct'
      ? "or set terminal.local.sandbox.network: proxy (the egress proxy, host by host), false (no network) or host (this machine's, loopback included)"
      : "or set terminal.local.sandbox.network: false (no network) or host (this machine's, loopback included)";
  const missing = (name: string, pkg: string): TetherError =>
    new TetherError(
      'Config.Invalid',
      `terminal.local.sandbox.network: ${name} not found (not on PATH); install the package '${pkg}' (Debian/Ubuntu: apt-get install ${pkg}), ${way}`,
      false,
    );
  if (!locate('nsenter').found) throw missing('nsenter', 'util-linux');
  if (spec.network === 'direct' && !locate('slirp4netns').found) throw missing('slirp4netns', 'slirp4netns');
  try {
    const network = await TaskNetwork.open(networkTools(spec));
    try {
      // The proxy's port is opened in the namespace by a Node helper: one that cannot start there says so now.
      if (spec.network === 'proxy') (await listenInside((argv) => network.wrap(argv))).server.close();
    } finally {
      network.close();
    }
  } catch (err) {
    const why = (err as Error).message.replace(/^local backend: /, '');
    throw new TetherError('Config.Invalid', `terminal.local.sandbox.network: ${why}; ${way}`, false);
  }
}

/** The helpers a task network of this sandbox uses: slirp4netns only for the outside network. */
export function networkTools(spec: SandboxSpec): TaskNetworkTools {
  return {
    bwrap: spec.bwrap,
    nsenter: spec.nsenter,
    slirp4netns: spec.network === 'direct' ? spec.slirp4netns : undefined,
  };
}
