// One task's terminal environment on any transport: commands with carried cd/export state, timeouts that kill the
// whole process group, cancellation, and the task's background processes. Worker-only.
import { randomBytes } from 'node:crypto';
import { HeadTailBuffer } from './output-buffer.js';
import { ProcessTable } from './processes.js';
import { CommandGuard } from './command-guard.js';
import { commandScript, killScript } from './shell-scripts.js';
import { ShellSession } from './shell-session.js';
import { EnvironmentError, type PtySize, type Transport } from './types.js';
import { currentToolCall, type ToolCallContext } from './tool-call-context.js';
import type { Attribution } from './egress/gate.js';

interface RunRequest {
  command: string;
  /** A one-off working directory (absolute, or relative to the current one); `cd` inside it is not carried over. */
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  timeoutSeconds: number;
  pty?: PtySize;
  signal?: AbortSignal;
  onOutput?: (chunk: Buffer) => void;
}

/** A non-zero exit code is a result, not an error. */
interface RunResult {
  /** 124 after a timeout, 130 after a cancellation; null when the channel was lost without a status. */
  exitCode: number | null;
  /** stdout and stderr interleaved as they arrived (raw: not yet cleaned, redacted or capped). */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Cancelled, but its process group was still there after KILL: it could not be confirmed dead. */
  survivedKill?: boolean;
  /** The task's long-lived shell ended during the command (it killed its shell): what the model is told. */
  shellReplaced?: string;
  /** What the environment's own enforcement did during the command (Transport.commandEnded), a line each. */
  enforced?: string[];
  durationMs: number;
}

/** A foreground command that is still running. */
interface RunningCommand {
  write(data: string | Buffer): void;
  /** Ends its standard input. */
  end(): void;
  /** Kills its process group (the result then says cancelled). */
  kill(): Promise<void>;
  readonly result: Promise<RunResult>;
}

interface ShellEnvironmentOptions {
  /** Variables every command gets (config `terminal.env`, the backend's `env`). */
  env?: Record<string, string>;
  /** A local process whose death kills running commands (the worker itself, for the local backend). */
  guardPid?: number;
}

export class ShellEnvironment {
  /** Where the carried state, pid files and background logs live inside the environment. */
  readonly stateDir = `/tmp/.tether-${randomBytes(6).toString('hex')}`;
  readonly processes: ProcessTable;
  private seq = 0;
  private started = false;
  /** The task's long-lived shell, when the transport hosts one (replaced when it ends). */
  private session: ShellSession | undefined;
  /** The transport's sandbox view when the long-lived shell was made (sandboxView). */
  private sessionView: string | undefined;
  /** Why the long-lived shell could not start here: every command then takes the per-command path. */
  private sessionUnusable: string | undefined;
  /** Foreground commands running now, with the run and tool call that started each (for egress approvals). */
  private readonly foreground = new Map<string, { command: string; call?: ToolCallContext }>();
  /** The run of the last command started here. */
  private lastRun: string | undefined;

  constructor(
    readonly transport: Transport,
    private readonly opts: ShellEnvironmentOptions = {},
  ) {
    this.processes = new ProcessTable(this);
    transport.attribute?.(() => this.running());
  }

  /**
   * What the environment is running, as a person deciding about a connection should see it: the foreground
   * commands (with the tool call of the last one), else the background processes.
   */
  running(): Attribution {
    const fg = [...this.foreground.values()];
    const last = fg[fg.length - 1];
    // A connection cannot be traced to one process here: every background process is named beside the foreground
    // commands, so a person never sees only the innocent one of two.
    const bg = this.processes.runningNow().map((p) => `${p.command}  (background process ${p.id})`);
    if (last)
      return {
        command: [...fg.map((f) => f.command), ...bg].join('\n'),
        callId: last.call?.callId,
        workflowId: last.call?.workflowId ?? this.lastRun,
      };
    return { command: bg.join('\n'), workflowId: this.lastRun };
  }

  get backend(): string {
    return this.transport.backend;
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.transport.start();
    this.started = true;
    // Started with the environment, so the first command does not wait for it.
    if (this.transport.persistentShell && this.transport.capabilities.streamsStdin) this.session = this.newSession();
  }

  private newSession(): ShellSession {
    this.sessionView = this.transport.sandboxView?.();
    return new ShellSession(this.transport, {
      stateDir: this.stateDir,
      workdir: this.workdir,
      tag: this.nextId('sh'),
      env: this.opts.env,
      guardPid: this.opts.guardPid,
    });
  }

  /** The long-lived shell reserved for this command, or undefined when it takes the per-command path. */
  private claimSession(req: { pty?: PtySize; keepStdinOpen?: boolean }): ShellSession | undefined {
    if (!this.transport.persistentShell || !this.transport.capabilities.streamsStdin || this.sessionUnusable) return;
    // A terminal or a program talking on its stdin needs a process of its own; so does a second concurrent command.
    if (req.pty !== undefined || req.keepStdinOpen === true) return;
    if (this.session?.ended) this.session = undefined;
    if (this.session?.busy) return;
    // Made under another view of the machine (a credential created since, a new repository): replaced, with the
    // working directory and exported variables carried over as after any shell's end.
    if (this.session && this.transport.sandboxView && this.transport.sandboxView() !== this.sessionView) {
      this.session.drop();
      this.session = undefined;
    }
    this.session ??= this.newSession();
    this.session.busy = true;
    return this.session;
  }

  /** Variables every command of this environment gets (terminal.env and the passed-through ones). */
  get variables(): Record<string, string> {
    return this.opts.env ?? {};
  }

  get workdir(): string {
    return this.transport.workdir;
  }

  nextId(prefix: string): string {
    this.seq += 1;
    return `${prefix}${this.seq}`;
  }

  /** The full script for a command, shared with background processes. */
  scriptFor(
    id: string,
    req: Omit<RunRequest, 'signal' | 'onOutput' | 'stdin'> & { saveState: boolean; exitFile?: string },
  ): string {
    return commandScript({
      stateDir: this.stateDir,
      id,
      command: req.command,
      defaultCwd: this.workdir,
      cwd: req.cwd,
      env: { ...this.opts.env, ...req.env },
      timeoutSeconds: req.timeoutSeconds,
      pty: req.pty !== undefined,
      saveState: req.saveState,
      guardPid: this.opts.guardPid,
      exitFile: req.exitFile,
    });
  }

  /**
   * Starts a foreground command and returns at once: its output streams to `onOutput`, its standard input stays
   * open for `write` on streaming transports (execute_code talks to its program this way), and `result` settles
   * as `run` would.
   */
  launch(req: RunRequest & { keepStdinOpen?: boolean }): RunningCommand {
    if (req.pty && !this.transport.capabilities.pty) {
      throw new EnvironmentError(
        'Environment.Unsupported',
        this.backend,
        'this backend has no PTY support; run the command without pty',
      );
    }
    if (req.keepStdinOpen && !this.transport.capabilities.streamsStdin) {
      throw new EnvironmentError(
        'Environment.Unsupported',
        this.backend,
        'this backend cannot stream standard input to a running command',
      );
    }
    const started = Date.now();
    const id = this.nextId('c');
    const call = currentToolCall();
    this.lastRun = call?.workflowId ?? this.lastRun;
    this.foreground.set(id, { command: req.command, call });
    // Before the shell is chosen: what changed since the last command decides the sandbox it runs in.
    const mark = this.transport.commandStarting?.();
    const ended = (): string[] => this.transport.commandEnded?.(mark) ?? [];
    let running: RunningCommand;
    try {
      const session = this.claimSession(req);
      running = session ? this.launchInSession(session, id, req, started) : this.launchProcess(id, req, started);
    } catch (err) {
      ended();
      this.foreground.delete(id);
      throw err;
    }
    const result = running.result.then(
      (r) => {
        const enforced = ended();
        return enforced.length > 0 ? { ...r, enforced } : r;
      },
      (err: unknown) => {
        ended();
        throw err;
      },
    );
    const done = (): void => void this.foreground.delete(id);
    result.then(done, done);
    return { ...running, result };
  }

  /** A foreground command in the task's long-lived shell (see shell-session.ts). */
  private launchInSession(session: ShellSession, id: string, req: RunRequest, started: number): RunningCommand {
    const out = new HeadTailBuffer();
    const tag = session.opts.tag;
    // The shell's watchdog enforces the timeout; the backstop covers a shell that stopped answering: it is replaced.
    const guard = new CommandGuard(
      req,
      () => this.kill(id, tag),
      () => session.drop(),
    );
    const result = (async (): Promise<RunResult> => {
      try {
        const ready = await session.ready.then(
          () => true,
          (err: unknown) => err,
        );
        if (ready !== true) {
          if (ready instanceof EnvironmentError && ready.backend === this.backend) throw ready;
          // The environment is there but a shell could not start in it: this and later commands go one by one.
          this.sessionUnusable = String((ready as Error).message);
          return await this.launchProcess(id, req, started).result;
        }
        const onData = (chunk: Buffer): void => {
          out.push(chunk);
          req.onOutput?.(chunk);
        };
        const o = await session.run(
          {
            id,
            command: req.command,
            cwd: req.cwd,
            env: req.env,
            stdin: req.stdin,
            timeoutSeconds: req.timeoutSeconds,
          },
          onData,
        );
        let shellReplaced: string | undefined;
        if (o.kind === 'shell-died' && !guard.backstopHit) {
          // What the command started may outlive its shell: its group goes too.
          guard.killing ??= this.kill(id, tag);
          shellReplaced =
            `the task's shell ended during this command (exit status ${o.exitCode ?? 'unknown'}); ` +
            'the next command runs in a new shell with the working directory and exported variables carried over';
        }
        const end = await guard.outcome(o.exitCode);
        if (end.timedOut || end.cancelled) this.transport.reapCommand?.(tag, id);
        return {
          ...end,
          output: out.text(),
          ...(shellReplaced ? { shellReplaced } : {}),
          durationMs: Date.now() - started,
        };
      } finally {
        session.busy = false;
        guard.dispose();
      }
    })();
    const unsupported = (): void => {
      throw new EnvironmentError('Environment.Unsupported', this.backend, 'this command has no open standard input');
    };
    return { write: unsupported, end: () => undefined, kill: guard.kill, result };
  }

  /** A foreground command as a transport process of its own. */
  private launchProcess(id: string, req: RunRequest & { keepStdinOpen?: boolean }, started: number): RunningCommand {
    const out = new HeadTailBuffer();
    // Without a PTY the command reads end of input after `stdin`; a terminal has no end of input, so it is typed.
    const open = req.pty !== undefined || req.keepStdinOpen === true;
    const proc = this.transport.spawn(
      this.scriptFor(id, { ...req, saveState: true }),
      open ? { pty: req.pty, tag: id } : { stdin: req.stdin ?? '', tag: id },
    );
    if (open && req.stdin) proc.write(req.stdin);
    proc.onData((chunk) => {
      out.push(chunk);
      req.onOutput?.(chunk);
    });
    // The watchdog inside the environment enforces the timeout; the backstop covers a far side that stopped answering.
    const guard = new CommandGuard(
      req,
      () => this.kill(id),
      () => proc.destroy(),
    );
    const result = (async (): Promise<RunResult> => {
      try {
        const exitCode = await proc.exited;
        // A cancelled command is over only when its whole group is gone, not when its wrapper exits. With a PTY the
        // wrapper may itself be killed by the group kill; the clock (read after that kill) then tells a timeout apart.
        const end = await guard.outcome(
          exitCode,
          () =>
            req.pty !== undefined &&
            !guard.cancelled &&
            exitCode !== null &&
            exitCode > 128 &&
            Date.now() - started >= req.timeoutSeconds * 1000,
        );
        return { ...end, output: out.text(), durationMs: Date.now() - started };
      } finally {
        guard.dispose();
      }
    })();
    return { write: (d) => proc.write(d), end: () => proc.end(), kill: guard.kill, result };
  }

  run(req: RunRequest): Promise<RunResult> {
    return this.launch(req).result;
  }

  /** Runs a short helper script to completion and returns its exit code and output. */
  async exec(
    script: string,
    stdin = '',
    opts: { joins?: string } = {},
  ): Promise<{ exitCode: number | null; output: Buffer }> {
    const chunks: Buffer[] = [];
    const proc = this.transport.spawn(script, { stdin, ...opts, helper: true });
    proc.onData((c) => chunks.push(c));
    const exitCode = await proc.exited;
    return { exitCode, output: Buffer.concat(chunks) };
  }

  /** Kills a running command (or background process) by its id: its whole process group, and waits until it is gone. */
  async kill(id: string, session?: string): Promise<'killed' | 'gone' | 'alive'> {
    try {
      // In a sandbox per command (or per shell), the kill script must run in its PID namespace to see its processes.
      const r = await this.exec(killScript(this.stateDir, id, 2, session), '', { joins: session ?? id });
      const said = r.output.toString();
      return said.includes('alive') ? 'alive' : said.includes('sent') ? 'killed' : 'gone';
    } catch {
      return 'gone';
    }
  }

  alive(): Promise<boolean> {
    return this.transport.alive();
  }

  /** Ends the background processes, removes the state directory, then what the transport made. */
  async close(): Promise<void> {
    try {
      this.session?.drop();
      this.session = undefined;
      if (this.started && (await this.transport.alive().catch(() => false))) {
        await this.processes.killAll();
        await this.exec(`rm -rf '${this.stateDir}'`).catch(() => undefined);
      }
    } finally {
      this.processes.detachAll();
      await this.transport.close();
    }
  }
}
