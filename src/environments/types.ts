// The narrow interface every terminal backend implements, and the error it raises when the backend fails. Worker-only (types and one error class).
import type { Attribution } from './egress/gate.js';
import { TetherError, type TetherErrorCode } from '../common/errors.js';

/** A pseudo-terminal's size. */
export interface PtySize {
  cols: number;
  rows: number;
}

export interface SpawnOptions {
  /** Allocate a pseudo-terminal of this size; stdout and stderr then arrive as one terminal stream. */
  pty?: PtySize;
  /** Names this process, so that a later spawn can join it (`joins`) while it runs. */
  tag?: string;
  /**
   * Runs inside the same sandbox as the running process tagged so (tether's kill script must see the command's
   * processes). Transports without per-command sandboxes ignore it; when that process has ended, `exited` rejects
   * with Environment.Gone.
   */
  joins?: string;
  /** The task's long-lived shell: between commands it runs nothing of the task's (see commandStarting). */
  taskShell?: boolean;
  /** One of tether's own short helper scripts (reads for the gate, clean-up): not one of the task's commands. */
  helper?: boolean;
}

/** One process started by a transport: a POSIX `sh -c SCRIPT` on the far side. */
export interface TransportProcess {
  /** Output as it arrives: stdout and stderr interleaved (with a PTY, the terminal's output). */
  onData(listener: (chunk: Buffer) => void): void;
  /** Writes to standard input. Only on transports with `streamsStdin`. */
  write(data: string | Buffer): void;
  /** Ends standard input. */
  end(): void;
  /** Resizes the PTY, when there is one. */
  resize?(size: PtySize): void;
  /**
   * Resolves with the exit code (128 + n for signal n) once the process ended and its output was delivered,
   * or null when the channel was lost without an exit status. Rejects with an EnvironmentError when the
   * backend failed (daemon down, connection lost, sandbox gone).
   */
  readonly exited: Promise<number | null>;
  /** Drops the channel. The far side may go on: the layer above kills it by its process group. */
  destroy(): void;
}

export interface TransportCapabilities {
  /** Standard input can be written while the process runs (otherwise it is given whole at start). */
  streamsStdin: boolean;
  /** `spawn` can allocate a PTY. */
  pty: boolean;
}

/**
 * Where commands run. A transport only starts `sh -c SCRIPT`; working directories, `cd`/`export` persistence,
 * timeouts, process groups and background processes are built on top of it by ShellEnvironment, the same way
 * on every backend.
 */
export interface Transport {
  /** Backend name, as in config (`local`, `docker`, `ssh`, ...). */
  readonly backend: string;
  readonly capabilities: TransportCapabilities;
  /** The directory commands start in (inside the environment), known once start() resolved. */
  readonly workdir: string;
  /** Prepares the environment (creates the container, connects, ...). Called once before the first spawn. */
  start(): Promise<void>;
  /**
   * Starts `sh -c script`. `stdin`, when given, is written and then closed (on every transport, streaming or
   * not); without it, standard input stays open on streaming transports until `end()`.
   */
  spawn(script: string, opts?: SpawnOptions & { stdin?: string }): TransportProcess;
  /** False when the environment is gone (container removed, sandbox stopped) and must be recreated. */
  alive(): Promise<boolean>;
  /** Removes what start() made. Safe to call twice and after a failure. */
  close(): Promise<void>;
  /**
   * True when every process of a command dies with the worker by the transport's own means (a sandbox with
   * --die-with-parent); the watchdog then does not watch the worker's pid, which it may not even see.
   */
  readonly diesWithWorker?: boolean;
  /**
   * Set when commands may run in one long-lived shell per task started with `spawn` (needs `streamsStdin`); absent,
   * every command is a `spawn` of its own.
   */
  readonly persistentShell?: PersistentShellSupport;
  /** Kills what a command run in the long-lived shell tagged `tag` left behind, after it timed out or was killed. */
  reapCommand?(tag: string, id: string): void;
  /**
   * When the environment's own enforcement (a sandbox) refused part of a failed command, as its output shows: one
   * line saying what refused and how a person can allow it. The command's own error stays in its output.
   */
  refusalNote?(output: string, startedAt?: number): string | undefined;
  /**
   * Told once, by the environment, how to say what it is running (the command behind a connection its egress proxy
   * asks a person about).
   */
  attribute?(who: () => Attribution): void;
  /**
   * What the transport's sandbox would make of this machine now (which hidden paths exist, which repositories it
   * protects), as a string that changes when that does: a long-lived shell made under another view is replaced
   * before the next command, so a credential created after it started is hidden from it too.
   */
  sandboxView?(): string;
  /**
   * Brackets each foreground command: called before it starts (before its shell is chosen) and after it ended,
   * with what the first call returned. The second returns what the environment's own enforcement did meanwhile, a
   * line each for the model (a limit the task reached, a protected file a command created, moved out).
   */
  commandStarting?(): unknown;
  commandEnded?(mark: unknown): string[];
}

/** How a transport hosts a task's long-lived shell (see shell-session.ts). */
export interface PersistentShellSupport {
  /** The shell has a PID namespace of its own (the local sandbox): after each command every process it left is killed. */
  ownPidNamespace?: boolean;
  /** A variable each command's processes inherit, with the command's id appended: how leftovers are found. */
  markVariable?: string;
}

export type EnvironmentErrorCode = Extract<TetherErrorCode, `Environment.${string}`>;

/** A backend failure, naming the backend and what failed; retryable when unreachable or gone. */
export class EnvironmentError extends TetherError {
  override readonly name: string = 'EnvironmentError';
  constructor(
    override readonly code: EnvironmentErrorCode,
    readonly backend: string,
    message: string,
  ) {
    super(code, `${backend} backend: ${message}`);
  }
}
