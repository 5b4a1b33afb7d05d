// The bubblewrap command line for one local command, and how a helper finds that command's PID namespace to join
// it. Worker-only (reads /proc).
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { realPath, type SandboxSpec } from './settings.js';
import { controlPlanePaths, isDirectory } from './control-plane.js';
import type { FileMount } from './task-network.js';
import { shQuote } from '../../shell-scripts.js';
import { withFilterOn9 } from './seccomp.js';
import { findProtected, pinArgs, protectedView, readOnlyArgs, type ProtectedFound } from './protected-files.js';
import { trustBinds, type TrustFiles } from './trust-binds.js';
import type { ProtectedEntry } from '../../../common/protected-paths.js';
import { RootedView, TaskView, within } from '../../task-view.js';

export interface SandboxLayout {
  /** The task's working directory: writable, and where commands start. */
  workdir: string;
  /** The host directory that is the sandbox's /tmp, shared by the task's commands (carried state lives there). */
  tmpDir: string;
  /** Mounted read-only over the machine's resolv.conf (its `target`) when the task network needs its own. */
  resolvConf?: FileMount;
  /** With the egress proxy: the CA bundle commands trust (trust-binds.ts). */
  trust?: TrustFiles;
}

/** /var/run is a link to /run on most systems; where it is a directory of its own it is hidden too. */
const VAR_RUN_IS_DIR = ((): boolean => {
  try {
    return lstatSync('/var/run').isDirectory();
  } catch {
    return false;
  }
})();

/**
 * bwrap's arguments (before the command). The order matters: later mounts go on top of earlier ones, so the
 * read-only root comes first and the writable paths last.
 *
 * - `/` read-only; `/dev` minimal, with a devpts of its own (never the host's /dev/pts: through it a command could read
 *   and write every other terminal of this machine; a PTY command gets a terminal of the sandbox's own, ptyArgv);
 *   a fresh /proc of the command's own PID namespace.
 * - `/run` (and a separate /var/run) empty: the sockets of the machine's daemons live there (Docker, D-Bus,
 *   systemd), and as the same user a command could connect to them even on a read-only mount and leave the
 *   sandbox through them. DNS through systemd-resolved keeps its directory, read-only.
 * - Its own PID namespace (`joinFd`: join a running command's instead, for tether's kill script), all
 *   capabilities dropped (as root, bwrap keeps them otherwise, and could remount `/` writable), dies with the worker.
 * - No network setting here: the command runs in its task's network namespace (task-network.ts wraps the whole
 *   command line), or in the machine's with `network: host`.
 */
export function bwrapArgs(spec: SandboxSpec, layout: SandboxLayout, o: { pty: boolean; joinFd?: number }): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev'];
  args.push('--tmpfs', '/dev/shm', '--proc', '/proc');
  // bwrap leaves /proc/sys writable (its access(W_OK) check on that directory always fails), and each sysctl is
  // writable by uid 0 whatever its capabilities: kernel.core_pattern would run a program as root outside the sandbox.
  args.push('--ro-bind', '/proc/sys', '/proc/sys');
  // Nor does it cover sysrq-trigger here, which uid 0 may write without capabilities too (reboot, crash).
  if (existsSync('/proc/sysrq-trigger')) args.push('--ro-bind', '/proc/sysrq-trigger', '/proc/sysrq-trigger');
  args.push('--tmpfs', '/run');
  if (existsSync('/run/systemd/resolve')) args.push('--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve');
  if (VAR_RUN_IS_DIR) args.push('--tmpfs', '/var/run');
  if (layout.resolvConf) args.push('--ro-bind', layout.resolvConf.file, layout.resolvConf.target);
  args.push(...trustBinds(layout.trust));
  const binds: [string, string][] = [
    [layout.tmpDir, '/tmp'],
    [layout.workdir, layout.workdir],
  ];
  for (const p of spec.writable) binds.push([p, p]);
  for (const [from, to] of binds) args.push('--bind', from, to);
  // Hidden paths, and on top what is shown again: the task's own directory, a path a person exposed inside a hidden
  // directory (~/.ssh/known_hosts in ~/.ssh, read-only).
  args.push(
    ...hide(
      viewOf(
        spec,
        binds.map(([, to]) => to),
      ),
      binds,
    ),
  );
  // Files other programs run or obey later (protected-files.ts): the directories above them pinned before the git
  // binds (a pin is a fresh bind of the host's directory and would cover them), the files read-only after them.
  const roots = [layout.workdir, ...spec.writable];
  const state = sandboxState(spec, layout.workdir);
  args.push(...pinArgs(state.found, roots, spec.hidden));
  args.push(...protectGit(state.repos));
  const view = viewOf(spec, roots);
  args.push(...readOnlyArgs(state.found, roots, (p) => view.sight(p) !== undefined));
  // tether's kill script joins a command's PID namespace from the worker's side, so it gets an empty network namespace
  // of its own: a command that takes it over (ptrace from inside that PID namespace) gains no way to this machine's
  // network. It needs none.
  args.push(...(o.joinFd === undefined ? ['--unshare-pid'] : ['--pidns', String(o.joinFd), '--unshare-net']));
  args.push('--unshare-ipc', '--cap-drop', 'ALL', '--die-with-parent');
  // The keyring filter (seccomp.ts) is read from descriptor 9, which sandboxArgv opens.
  if (spec.seccomp) args.push('--seccomp', '9');
  args.push('--chdir', layout.workdir, '--');
  return args;
}

/**
 * What a person's own git runs, outside the sandbox, is read-only inside it: the `config` (fsmonitor, hooksPath,
 * filters, aliases, pagers) and `hooks` of each git directory found in a writable path when the shell starts (a
 * `.git` directory, or a bare repository). A missing hooks directory becomes an empty one that cannot be written. The
 * git directory is bound onto itself so it cannot be renamed away from them; the rest of it (objects, refs, index)
 * stays writable, so commits work. A `commondir` or `config.worktree` that does not exist yet cannot be held this
 * way (a mount needs the file, and an empty commondir breaks git): writing one is left to the approval gate.
 */
function protectGit(repos: readonly string[]): string[] {
  const args: string[] = [];
  for (const git of repos) {
    args.push('--bind', git, git);
    const config = join(git, 'config');
    if (existsSync(config)) args.push('--ro-bind', config, config);
    const hooks = join(git, 'hooks');
    if (existsSync(hooks)) args.push('--ro-bind', hooks, hooks);
    else args.push('--perms', '0555', '--size', '4096', '--tmpfs', hooks);
  }
  return args;
}

/** How far below a writable path git directories are looked for, and how much of it is looked at. */
const REPO_DEPTH = 4;
const REPO_DIRS = 400;
const REPO_MAX = 32;
/** Directories not searched: installed packages hold no repository a person's git enters. */
const NOT_SEARCHED = new Set(['node_modules']);

/**
 * The git directories in each root, nearest first: `.git` directories, bare repositories (HEAD, objects/ and
 * refs/) and submodules' git directories in .git/modules, at most REPO_DEPTH levels down, within the first REPO_DIRS directories read and REPO_MAX repositories.
 * Links are not followed. Also the tops of the projects there: the roots, and each directory holding a `.git`
 * (a directory, or the file of a submodule or linked worktree), where the protected files are looked for.
 */
function repositories(view: RootedView, roots: readonly string[]): { repos: string[]; tops: string[] } {
  const found: string[] = [];
  const tops = [...roots];
  let read = 0;
  const queue: [string, number][] = roots.map((r) => [r, 0]);
  for (let i = 0; i < queue.length && read < REPO_DIRS && found.length < REPO_MAX; i += 1) {
    const [dir, depth] = queue[i]!;
    let entries: { name: string; isDirectory(): boolean; isFile(): boolean }[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable: nothing below it is looked at
    }
    read += 1;
    const names = new Set(entries.map((e) => e.name));
    if (depth > 0 && names.has('.git') && tops.length < roots.length + REPO_MAX) tops.push(dir);
    if (names.has('objects') && names.has('refs') && entries.some((e) => e.name === 'HEAD' && e.isFile())) {
      found.push(dir); // a bare repository: git enters it as it is
      continue;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const path = join(dir, e.name);
      // A hidden directory (~/.ssh, TETHER_HOME's checkpoint store under a task directory that holds the home) or a
      // read-only exposed one is not searched: binding a repository found there would show it again, writable.
      if (view.sight(path) !== undefined) continue;
      if (e.name === '.git') {
        found.push(path);
        // A submodule's git directory is in .git/modules/NAME: git reads its config there.
        if (depth < REPO_DEPTH) queue.push([join(path, 'modules'), depth + 1]);
      } else if (depth < REPO_DEPTH && !NOT_SEARCHED.has(e.name)) queue.push([path, depth + 1]);
    }
  }
  return { repos: found.slice(0, REPO_MAX), tops };
}

/**
 * The protected entries of a task: the setting's, and each hidden path inside a root (a task directory that holds the
 * home: ~/.ssh, ~/.bashrc, ~/.npmrc). A hidden path that exists is mounted over; one that does not cannot be (bwrap
 * would have to make it in the person's home), so, like a protected file a command creates, one that appears while
 * the task's processes run is moved out (protected-guard.ts): no command plants a key or a start-up file there.
 */
export function protectedEntries(spec: SandboxSpec, roots: readonly string[]): ProtectedEntry[] {
  const entries = [...(spec.protected ?? [])];
  // tether's own files are written by the worker itself while commands run (its store, checkpoints, CA): not these.
  const own = controlPlanePaths().map(realPath);
  for (const h of spec.hidden)
    for (const r of roots)
      if (h !== r && within(h, r) && !own.some((o) => within(h, o)))
        entries.push({ path: relative(r, h), kind: 'hidden' });
  return entries;
}

/** What the sandbox would protect now: the repositories, the projects' tops, and the protected files found there. */
export interface SandboxState {
  repos: string[];
  tops: string[];
  found: ProtectedFound[];
}

export function sandboxState(spec: SandboxSpec, workdir: string): SandboxState {
  const roots = [workdir, ...spec.writable];
  const { repos, tops } = repositories(viewOf(spec, roots), roots);
  return { repos, tops, found: findProtected(tops, protectedEntries(spec, roots)) };
}

/** What bwrapArgs would hide and protect now: the hidden paths that exist, the repositories and protected files. */
export function sandboxView(spec: SandboxSpec, workdir: string, state = sandboxState(spec, workdir)): string {
  return [
    ...spec.hidden.filter((p) => existsSync(p)),
    '\u0000',
    ...state.repos,
    '\u0000',
    protectedView(state.found),
  ].join('\u0000');
}

/** The task's view (task-view.ts) with the sandbox's binds as its roots. */
function viewOf(spec: SandboxSpec, roots: readonly string[]): RootedView {
  return new RootedView(
    new TaskView(
      spec.hidden.map((path) => ({ path, why: 'configured' as const })),
      spec.exposed,
    ),
    roots,
  );
}

/**
 * The view's layers as mounts (task-view.ts: the deepest layer decides, so they go shallowest first). Each hidden
 * path that exists becomes an empty directory no command can write (mode 0555; with every capability dropped even
 * root is held to it), or reads as an empty file; a bind that lies inside a hidden directory (a task directory under
 * TETHER_HOME) is bound again on top, so the task still has it, and a hidden path inside that is hidden again; an
 * exposed path inside a hidden directory is bound read-only on top.
 */
function hide(view: RootedView, binds: readonly [string, string][]): string[] {
  const layers = view.mounts().filter((l) => existsSync(l.path));
  const args: string[] = [];
  // A hidden path inside a writable one (a task directory that holds the home: ~/.docker/config.json) could be
  // taken out of hiding by renaming a directory above it (mv .docker x; the next command's sandbox finds no
  // .docker/config.json to hide). Each such directory is bound onto itself, as writable as before: a mount point
  // cannot be renamed or removed (EBUSY). The hidden path itself is a mount point already.
  const pinned = new Set<string>();
  for (const l of layers)
    for (const [from, to] of binds) {
      // Only binds of a host path onto itself show the host's files there (not the private /tmp).
      if (l.kind !== 'hide' || from !== to || l.path === to || !within(l.path, to)) continue;
      for (let a = dirname(l.path); a !== to && within(a, to); a = dirname(a)) pinned.add(a);
    }
  for (const a of [...pinned].sort((x, y) => x.length - y.length)) args.push('--bind', a, a);
  for (const l of layers) {
    if (l.kind === 'hide') {
      if (isDirectory(l.path)) args.push('--perms', '0555', '--size', '4096', '--tmpfs', l.path);
      else args.push('--ro-bind', '/dev/null', l.path);
    } else if (l.kind === 'show') {
      for (const [from, to] of binds) if (to === l.path) args.push('--bind', from, to);
    } else args.push('--ro-bind', l.path, l.path);
  }
  return args;
}

/**
 * The argv after bwrap's arguments for a command on a PTY. The worker's pseudo-terminal reaches the sandbox as the
 * command's standard input and output only; `script` makes a terminal in the sandbox's own devpts and relays to it
 * (window size included), so programs that ask for their terminal's name (tty, tmux, ssh) find one.
 */
export function ptyArgv(script: string): string[] {
  return ['script', '-qfec', `exec /bin/sh -c ${shQuote(script)}`, '/dev/null'];
}

/** The whole command line: bwrap, its arguments and `tail`, with the seccomp filter open on descriptor 9. */
export function sandboxArgv(
  spec: SandboxSpec,
  layout: SandboxLayout,
  o: { pty: boolean; joinFd?: number },
  tail: string[],
): string[] {
  const argv = [spec.bwrap, ...bwrapArgs(spec, layout, o), ...tail];
  return spec.seccomp ? withFilterOn9(spec.seccomp, argv) : argv;
}

/** The first child of a process (bwrap's sandboxed init is the only child of the bwrap process the worker started). */
export function firstChild(pid: number): number | undefined {
  try {
    const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    if (listed) return Number(listed);
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: scan every process's parent instead.
  }
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (the parent) follows the command name, which is in parentheses and may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) return Number(name);
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

/**
 * The PID namespace file of the sandbox whose bwrap process is `bwrapPid`, waiting briefly for a sandbox that is
 * still being set up; undefined when it has ended.
 */
export async function sandboxPidNamespace(bwrapPid: number): Promise<string | undefined> {
  for (let i = 0; i < 50; i += 1) {
    if (!existsSync(`/proc/${bwrapPid}`)) return undefined;
    const child = firstChild(bwrapPid);
    if (child !== undefined) return `/proc/${child}/ns/pid`;
    await new Promise((r) => setTimeout(r, 10));
  }
  return undefined;
}
