// The local backend: scripts run by /bin/sh on the worker's machine, in the task's directory, inside a bubblewrap
// sandbox on Linux (see sandbox.ts); PTYs through node-pty. Worker-only.
import { spawn, type ChildProcessWithoutNullStreams, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendContext, BackendDefinition } from '../../backend-types.js';
import { egressGate, type Attribution } from '../../egress/gate.js';
import { TaskProxy } from '../../egress/task-proxy.js';
import { networkNote } from '../../egress/network-note.js';
import { lazyLogger } from '../../../logging/logger.js';
import { deferredProcess, failedProcess } from '../../deferred-process.js';
import {
  ptyArgv,
  sandboxArgv,
  sandboxState,
  sandboxView,
  firstChild,
  sandboxPidNamespace,
  type SandboxLayout,
  type SandboxState,
} from './sandbox.js';
import { ProtectedGuard } from './protected-guard.js';
import { taskCgroup, type LimitsSetting } from './limits.js';
import { limitNotes, type LimitCounters } from '../../cgroups/files.js';
import { placedArgv, type TaskCgroup } from '../../cgroups/groups.js';
import { withoutControlPlane } from './control-plane.js';
import { baseEnvironment } from '../../command-env.js';
import { COMMAND_MARK, ENV_MARK, killMarked } from './stragglers.js';
import {
  checkLocalSettings,
  LocalSettingsSchema,
  networkTools,
  sandboxSpec,
  type LocalSettings,
  type SandboxSpec,
} from './settings.js';
import { TaskNetwork } from './task-network.js';
import { removeDeadWorkersDirs } from './leftover-dirs.js';
import {
  EnvironmentError,
  type PersistentShellSupport,
  type SpawnOptions,
  type Transport,
  type TransportProcess,
} from '../../types.js';

/** After the script exits, how long to wait for pipes still held open by processes it left behind. */
const DRAIN_MS = 300;

type PtyModule = typeof import('node-pty');
let ptyModule: Promise<PtyModule> | undefined;

function loadPty(): Promise<PtyModule> {
  ptyModule ??= import('node-pty').catch((err: unknown) => {
    ptyModule = undefined;
    throw new EnvironmentError(
      'Environment.Unsupported',
      'local',
      `node-pty could not be loaded (${(err as Error).message}); PTY mode needs its native module built at npm ci`,
    );
  });
  return ptyModule;
}

function signalCode(signal: NodeJS.Signals | number | null | undefined): number | null {
  if (signal === null || signal === undefined || signal === 0) return null;
  return 128 + (typeof signal === 'number' ? signal : (constants.signals[signal] ?? 0));
}

/** A started program and, once known, its process id (a sandbox's bwrap, which a later helper joins). */
type LocalProcess = TransportProcess & { readonly pid: Promise<number | undefined> };

/**
 * bash sources ~/.bashrc when its standard input is a socket (Node's pipes are) and SHLVL is unset: its guess that
 * rshd started it. Whether that happens then depends on how the worker was started; in the sandbox the file's
 * writes (pyenv's rehash, caches) fail into every command's output. A sandboxed command is never interactive.
 */
function sandboxEnv(proxy?: TaskProxy): NodeJS.ProcessEnv {
  const level = process.env.SHLVL;
  // With the egress proxy, its variables (HTTP_PROXY, ... upper and lower case) are part of every command's start.
  return { ...commandBase(), SHLVL: level && level !== '0' ? level : '1', ...proxy?.env() };
}

/**
 * What every local command's process starts with: the allowlisted variables only (the worker's secrets, provider
 * keys and Temporal credentials are not among them); terminal.env_passthrough and terminal.env come in through the
 * task's shell, as on every backend.
 */
function commandBase(): NodeJS.ProcessEnv {
  return withoutControlPlane(baseEnvironment(process.env));
}

/** A child process with pipes; `extraFd` becomes its fd 3. */
function pipeProcess(
  argv: string[],
  cwd: string,
  stdin: string | undefined,
  extraFd?: number,
  env: NodeJS.ProcessEnv = process.env,
): LocalProcess {
  const [file, ...args] = argv as [string, ...string[]];
  // The first three are pipes either way; the typings only know that for a three-element stdio.
  const stdio: StdioOptions = extraFd === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', extraFd];
  const child = spawn(file, args, { cwd, env, detached: true, stdio }) as ChildProcessWithoutNullStreams;
  const listeners: ((c: Buffer) => void)[] = [];
  const emit = (c: Buffer): void => listeners.forEach((l) => l(c));
  child.stdout.on('data', emit);
  child.stderr.on('data', emit);
  child.stdin.on('error', () => undefined); // the script may exit without reading its input
  if (stdin !== undefined) child.stdin.end(stdin);
  const exited = new Promise<number | null>((resolve, reject) => {
    let code: number | null = null;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(code);
    };
    child.on('error', (err) =>
      reject(
        new EnvironmentError('Environment.Unreachable', 'local', `cannot start ${file} in ${cwd}: ${err.message}`),
      ),
    );
    child.on('exit', (c, s) => {
      code = c ?? signalCode(s);
      child.on('close', finish);
      setTimeout(finish, DRAIN_MS).unref();
    });
  });
  return {
    pid: Promise.resolve(child.pid),
    onData: (l) => listeners.push(l),
    write: (d) => child.stdin.write(d),
    end: () => child.stdin.end(),
    exited,
    destroy: () => {
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
    },
  };
}

/** A child process on a pseudo-terminal (node-pty); its output arrives as the terminal's. */
function ptyProcess(
  argv: string[],
  cwd: string,
  opts: SpawnOptions & { stdin?: string },
  env: NodeJS.ProcessEnv = process.env,
): LocalProcess {
  const [file, ...args] = argv as [string, ...string[]];
  const listeners: ((c: Buffer) => void)[] = [];
  const queued: (string | Buffer)[] = [];
  let term: import('node-pty').IPty | undefined;
  let ended = false;
  let started: (pid: number | undefined) => void = () => undefined;
  const pid = new Promise<number | undefined>((r) => (started = r));
  // A resize before node-pty has loaded applies when the terminal is made, instead of being lost.
  let size = opts.pty!;
  const exited = loadPty().then(
    (pty) =>
      new Promise<number | null>((resolve) => {
        term = pty.spawn(file, args, {
          cwd,
          env: env as Record<string, string>,
          cols: size.cols,
          rows: size.rows,
          name: 'xterm-256color',
          encoding: null,
        });
        term.onData((d) => {
          const c = typeof d === 'string' ? Buffer.from(d) : Buffer.from(d);
          listeners.forEach((l) => l(c));
        });
        started(term.pid);
        term.onExit(({ exitCode, signal }) => resolve(signal ? signalCode(signal) : exitCode));
        for (const q of queued.splice(0)) term.write(typeof q === 'string' ? q : q.toString('utf8'));
        if (opts.stdin) term.write(opts.stdin);
        if (ended) term.write('\x04');
      }),
  );
  exited.catch(() => started(undefined));
  return {
    pid,
    onData: (l) => listeners.push(l),
    write: (d) => (term ? term.write(typeof d === 'string' ? d : d.toString('utf8')) : queued.push(d)),
    // A terminal has no end of input; Ctrl-D at the start of a line is what programs read as one.
    end: () => {
      ended = true;
      term?.write('\x04');
    },
    resize: (s) => {
      size = s;
      term?.resize(s.cols, s.rows);
    },
    exited,
    destroy: () => term?.kill('SIGHUP'),
  };
}

export class LocalTransport implements Transport {
  readonly backend = 'local';
  readonly capabilities = { streamsStdin: true, pty: true };
  /** The sandbox's /tmp on this machine, made by start() and removed by close(). */
  private tmpDir: string | undefined;
  /** The task's network namespace (not with `network: host`), made by start() and ended by close(). */
  private network: TaskNetwork | undefined;
  /** The task's egress proxy (network: proxy), its port inside the task's namespace; made by start(). */
  private proxy: TaskProxy | undefined;
  /** What the environment is running, for the proxy's approvals (see attribute()). */
  private who: (() => Attribution) | undefined;
  /** Tagged commands still running, by tag: their process (a sandbox's bwrap) id. */
  private readonly tagged = new Map<string, Promise<number | undefined>>();
  private readonly running = new Set<LocalProcess>();
  /** Unsandboxed: the variable value that marks this environment's processes, and a counter for its commands. */
  private readonly mark = randomBytes(8).toString('hex');
  private commands = 0;
  /** Unsandboxed: the mark of each tagged process (a long-lived shell's commands append their id to it). */
  private readonly tagMarks = new Map<string, string>();
  /** Protected files the sandbox cannot hold by a mount (protected-guard.ts); made by start(). */
  private guard: ProtectedGuard | undefined;
  /** The cgroup holding the task's processes (limits.ts); made by start() where limits are on and possible. */
  private cgroup: TaskCgroup | undefined;
  /** The sandbox's look at the machine taken as a command starts, for the choice of its shell just after. */
  private looked: SandboxState | undefined;

  /** Without `sandbox`, commands run as the worker's own children, with its access to the machine. */
  constructor(
    readonly workdir: string,
    readonly sandbox?: SandboxSpec,
    private readonly ctx?: Pick<BackendContext, 'taskId' | 'log' | 'workflowId'>,
    private readonly limits: LimitsSetting = 'off',
  ) {}

  attribute(who: () => Attribution): void {
    this.who = who;
    this.proxy?.attribute(who);
  }

  /**
   * One long-lived shell per task: in the sandbox one bwrap for it (its PID namespace is emptied after each command,
   * as a sandbox per command was); without it, each command's processes carry a mark of their own.
   */
  get persistentShell(): PersistentShellSupport {
    return this.sandbox ? { ownPidNamespace: true } : { markVariable: COMMAND_MARK };
  }

  /** What the sandbox hides and protects now: a shell made under another view is replaced (ShellEnvironment). */
  sandboxView(): string {
    if (!this.sandbox) return '';
    // A command's start looked at the machine a moment ago (commandStarting): the same look serves here.
    const state = this.looked ?? sandboxState(this.sandbox, this.workdir);
    if (!this.looked) this.guard?.observe(state);
    this.looked = undefined;
    return sandboxView(this.sandbox, this.workdir, state);
  }

  /** The limits' counters, and a look at the protected files (a background process may have made one). */
  commandStarting(): LimitCounters | undefined {
    if (this.sandbox && this.guard) {
      const state = sandboxState(this.sandbox, this.workdir);
      // Kept for the shell's choice, which follows at once, unless the look just undid something.
      if (!this.guard.commandStarting(state)) {
        this.looked = state;
        setImmediate(() => (this.looked = undefined));
      }
    }
    return this.cgroup?.counters();
  }

  /** What the task's limits and the protected files' guard did during the command. */
  commandEnded(mark: unknown): string[] {
    this.looked = undefined;
    const notes = this.guard?.commandEnded() ?? [];
    const before = mark as LimitCounters | undefined;
    if (this.cgroup && before) notes.push(...limitNotes(before, this.cgroup.counters(), this.cgroup.limits));
    return notes;
  }

  /**
   * The task's commands, background processes, PTYs and execute_code programs start in its cgroup (placedArgv).
   * tether's helpers and kill script stay outside, so they work when the task is at its limits.
   */
  private placed(argv: string[], opts: SpawnOptions): string[] {
    return !this.cgroup || opts.helper ? argv : placedArgv(this.cgroup.procsFiles, argv);
  }

  /** Unsandboxed, what a timed-out or killed command of a long-lived shell left (setsid children) goes too. */
  reapCommand(tag: string, id: string): void {
    const mark = this.tagMarks.get(tag);
    if (!this.sandbox && mark !== undefined) killMarked(COMMAND_MARK, `${mark}/${id}`);
  }

  /** A sandboxed command dies with the worker (bwrap --die-with-parent), and could not see the worker's pid anyway. */
  get diesWithWorker(): boolean {
    return this.sandbox !== undefined;
  }

  async start(): Promise<void> {
    if (!existsSync(this.workdir))
      throw new EnvironmentError('Environment.Config', 'local', `working directory ${this.workdir} does not exist`);
    if (this.sandbox && !existsSync(this.sandbox.bwrap)) {
      // The worker checks this at start for the configured backend; `--backend local` picked later lands here.
      throw new EnvironmentError(
        'Environment.Config',
        'local',
        `bubblewrap (${this.sandbox.bwrap}) not found; install the package 'bubblewrap', or set terminal.local.sandbox: off`,
      );
    }
    if (!this.cgroup && this.limits !== 'off') {
      try {
        this.cgroup = await taskCgroup(this.limits, this.ctx?.taskId ?? 'task');
      } catch (err) {
        throw new EnvironmentError('Environment.Config', 'local', `the task's cgroup: ${(err as Error).message}`);
      }
    }
    if (!this.sandbox) return;
    if (!this.guard) {
      const log = this.ctx?.log ?? lazyLogger;
      this.guard = new ProtectedGuard(this.sandbox, this.workdir, this.ctx?.taskId ?? 'task', (msg) =>
        log.warn({ taskId: this.ctx?.taskId }, msg),
      );
      this.guard.observe(sandboxState(this.sandbox, this.workdir));
    }
    // Named for this worker, so a later worker can remove it once this one is gone (leftover-dirs.ts).
    this.tmpDir ??= mkdtempSync(join(tmpdir(), `tether-sandbox-${process.pid}-`));
    if (this.sandbox.network !== 'host') this.network ??= await TaskNetwork.open(networkTools(this.sandbox));
    if (this.sandbox.network === 'proxy' && !this.proxy) {
      const network = this.network!;
      const label = { taskId: this.ctx?.taskId ?? '', backend: 'local', workflowId: this.ctx?.workflowId };
      try {
        this.proxy = await TaskProxy.open(
          egressGate(),
          (argv) => network.wrap(argv),
          label,
          this.ctx?.log ?? lazyLogger,
        );
      } catch (err) {
        throw new EnvironmentError('Environment.Unreachable', 'local', (err as Error).message);
      }
      if (this.who) this.proxy.attribute(this.who);
    }
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    if (!this.sandbox) return this.unsandboxed(script, opts);
    if (opts.joins !== undefined) return this.joined(script, opts.joins, opts.stdin);
    const command = sandboxArgv(
      this.sandbox,
      this.layout(),
      { pty: opts.pty !== undefined },
      opts.pty ? ptyArgv(script) : ['/bin/sh', '-c', script],
    );
    // Never the machine's network by mistake: without its task network (closed, or not made) nothing runs.
    if (this.sandbox.network !== 'host' && !this.network)
      throw new EnvironmentError('Environment.Gone', 'local', "the task's network namespace has ended");
    const argv = this.placed(this.network ? this.network.wrap(command) : command, opts);
    const proc = opts.pty
      ? ptyProcess(argv, this.workdir, opts, sandboxEnv(this.proxy))
      : pipeProcess(argv, this.workdir, opts.stdin, undefined, sandboxEnv(this.proxy));
    this.running.add(proc);
    if (opts.tag !== undefined) this.tagged.set(opts.tag, proc.pid);
    // The task shell runs the task's code only between commandStarting and commandEnded; the others whenever.
    const own = !opts.taskShell && !opts.helper;
    if (own) this.guard?.started(proc);
    const done = (): void => {
      this.running.delete(proc);
      if (own) this.guard?.ended(proc);
      if (opts.tag !== undefined && this.tagged.get(opts.tag) === proc.pid) this.tagged.delete(opts.tag);
    };
    proc.exited.then(done, done);
    return proc;
  }

  /**
   * Without the sandbox, every process inherits marks naming this environment and its command: a command that
   * ends by timeout (124) or a kill (130, or 128 + a signal) takes the processes it left behind with it, setsid children included, and
   * close() takes every one of the environment's. A process that clears its environment escapes this.
   */
  private unsandboxed(script: string, opts: SpawnOptions & { stdin?: string }): TransportProcess {
    this.commands += 1;
    const command = `${this.mark}-${this.commands}`;
    const env = { ...commandBase(), [ENV_MARK]: this.mark, [COMMAND_MARK]: command };
    const argv = this.placed(['/bin/sh', '-c', script], opts);
    const proc = opts.pty
      ? ptyProcess(argv, this.workdir, opts, env)
      : pipeProcess(argv, this.workdir, opts.stdin, undefined, env);
    if (opts.tag !== undefined) {
      this.tagMarks.set(opts.tag, command);
      proc.exited.then(
        (code) => void (code !== null && (code === 124 || code >= 128) ? killMarked(COMMAND_MARK, command) : 0),
        () => undefined,
      );
    }
    return proc;
  }

  private layout(): SandboxLayout {
    if (!this.tmpDir) throw new EnvironmentError('Environment.Gone', 'local', 'the sandbox was closed');
    return {
      workdir: this.workdir,
      tmpDir: this.tmpDir,
      resolvConf: this.network?.resolvConf,
      trust: this.proxy?.trustFiles(),
    };
  }

  /** Runs a helper (tether's kill script) in the PID namespace of the running command tagged `tag`. */
  private joined(script: string, tag: string, stdin: string | undefined): TransportProcess {
    const target = this.tagged.get(tag);
    const gone = new EnvironmentError('Environment.Gone', 'local', `the sandbox of ${tag} has ended`);
    if (!target) return failedProcess(gone);
    const spec = this.sandbox!;
    return deferredProcess(
      (async () => {
        const pid = await target;
        const ns = pid === undefined ? undefined : await sandboxPidNamespace(pid);
        if (!ns) throw gone;
        let fd: number;
        try {
          fd = openSync(ns, 'r');
        } catch {
          throw gone;
        }
        try {
          return pipeProcess(
            sandboxArgv(spec, this.layout(), { pty: false, joinFd: 3 }, ['/bin/sh', '-c', script]),
            this.workdir,
            stdin,
            fd,
            sandboxEnv(this.proxy),
          );
        } finally {
          closeSync(fd);
        }
      })(),
    );
  }

  refusalNote(output: string, startedAt = 0): string | undefined {
    if (!this.sandbox) return undefined;
    const notes: string[] = [];
    const guarded = this.guard?.refusalNote(output);
    if (guarded?.note) notes.push(guarded.note);
    if (guarded ? guarded.other : /Read-only file system/i.test(output))
      notes.push(
        `the local sandbox keeps everything outside ${this.workdir}, /tmp and terminal.local.sandbox.writable read-only; ` +
          'if this command needs to write elsewhere, a person must add the path to terminal.local.sandbox.writable in config.yaml and restart the worker',
      );
    const network = this.proxy ? networkNote(output, this.proxy.refusalsSince(startedAt)) : undefined;
    if (network) notes.push(network);
    return notes.length > 0 ? notes.join('; ') : undefined;
  }

  async alive(): Promise<boolean> {
    return (
      existsSync(this.workdir) &&
      (this.tmpDir === undefined || existsSync(this.tmpDir)) &&
      (this.network === undefined || this.network.alive())
    );
  }

  /** Ends every sandbox still running (and with each, every process in it), then removes the sandbox's /tmp. */
  async close(): Promise<void> {
    if (!this.sandbox) killMarked(ENV_MARK, this.mark);
    const procs = [...this.running];
    this.running.clear();
    this.tagged.clear();
    for (const p of procs) {
      const pid = await p.pid;
      if (pid === undefined) continue;
      // Killing the sandbox's init ends its PID namespace (the kernel kills the rest) and bwrap then exits and is
      // reaped here; killing bwrap would also do (--die-with-parent) but leaves the init to the machine's init.
      try {
        process.kill(firstChild(pid) ?? pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await Promise.all(procs.map((p) => p.exited.catch(() => null)));
    // What a process of the task created at a protected path is not left behind; nor is anything in its cgroup.
    this.guard?.close();
    await this.cgroup?.close();
    this.cgroup = undefined;
    if (this.tmpDir) rmSync(this.tmpDir, { recursive: true, force: true });
    this.tmpDir = undefined;
    this.proxy?.close();
    this.proxy = undefined;
    this.network?.close();
    this.network = undefined;
  }
}

export const localBackend: BackendDefinition<LocalSettings> = {
  name: 'local',
  description: "this machine, in the task's working directory (inside a bubblewrap sandbox on Linux)",
  settings: LocalSettingsSchema,
  preflight: checkLocalSettings,
  create: (settings, ctx) => new LocalTransport(ctx.hostCwd, sandboxSpec(settings), ctx, settings.sandbox.limits),
  cleanup: async () => removeDeadWorkersDirs(),
};
