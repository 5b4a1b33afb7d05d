// A task's background processes: started, polled, fed input, waited for and killed the same way on every backend;
// streamed where the transport streams, kept in files inside the environment where it does not. Worker-only.
import {
  closeInputScript,
  forgetFileProcessScript,
  parsePoll,
  pollFileProcessScript,
  startFileProcessScript,
  writeFileProcessScript,
} from './file-process-scripts.js';
import { posix } from 'node:path';
import { boundToJudged } from './judged-bytes.js';
import { OutputLog } from './output-log.js';
import { currentToolCall } from './tool-call-context.js';
import type { ShellEnvironment } from './shell-environment.js';
import { EnvironmentError, type PtySize, type TransportProcess } from './types.js';

interface ProcessInfo {
  id: string;
  command: string;
  status: 'running' | 'exited';
  exit_code: number | null;
  pty: boolean;
  started_at: string;
  output_bytes: number;
}

interface Entry {
  id: string;
  command: string;
  pty: boolean;
  startedAt: Date;
  log: OutputLog;
  exitCode: number | null;
  running: boolean;
  /** Offset up to which `poll` has shown output. */
  polled: number;
  /** Streaming transports: the live channel. */
  proc?: TransportProcess;
  /** Input written since its last end of line: the approval gate judges it with the next write. */
  unterminated?: string;
  /** The files its command was judged on, as paths from the task directory or absolute (heldFiles). */
  held?: string[];
  exited?: Promise<void>;
}

const FETCH_BYTES = 256 * 1024;

export class ProcessTable {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly env: ShellEnvironment) {}

  private get streams(): boolean {
    return this.env.transport.capabilities.streamsStdin;
  }

  private entry(id: string): Entry {
    const e = this.entries.get(id);
    if (!e) {
      const known = [...this.entries.keys()].join(', ') || 'none';
      throw new EnvironmentError(
        'Environment.Unsupported',
        this.env.backend,
        `no background process '${id}' in this task (known: ${known})`,
      );
    }
    return e;
  }

  async start(
    command: string,
    opts: { cwd?: string; env?: Record<string, string>; pty?: PtySize },
  ): Promise<ProcessInfo> {
    if (opts.pty && !this.env.transport.capabilities.pty) {
      throw new EnvironmentError(
        'Environment.Unsupported',
        this.env.backend,
        'this backend has no PTY support; start the process without pty',
      );
    }
    const id = this.env.nextId('proc_');
    const e: Entry = {
      id,
      command,
      pty: opts.pty !== undefined,
      startedAt: new Date(),
      log: new OutputLog(),
      exitCode: null,
      running: true,
      polled: 0,
    };
    // Like a foreground command, it runs only on the bytes its verdict read (judged-bytes.ts).
    const run = boundToJudged(command, currentToolCall()?.judgedDigests);
    if (this.streams) {
      const script = this.env.scriptFor(id, {
        command: run,
        cwd: opts.cwd,
        env: opts.env,
        timeoutSeconds: 0,
        pty: opts.pty,
        saveState: false,
      });
      const proc = this.env.transport.spawn(script, { pty: opts.pty, tag: id });
      proc.onData((c) => e.log.append(c));
      e.proc = proc;
      e.exited = proc.exited.then(
        (code) => {
          e.exitCode = code;
          e.running = false;
        },
        () => {
          e.running = false;
        },
      );
    } else {
      const r = await this.env.exec(
        startFileProcessScript({
          stateDir: this.env.stateDir,
          id,
          command: run,
          defaultCwd: this.env.workdir,
          cwd: opts.cwd,
          // As a streamed process gets them through scriptFor: terminal.env and the passed-through variables too.
          env: { ...this.env.variables, ...opts.env },
        }),
      );
      if (r.exitCode !== 0)
        throw new EnvironmentError(
          'Environment.Unreachable',
          this.env.backend,
          `could not start the background process: ${r.output.toString().slice(0, 500)}`,
        );
    }
    const judged = currentToolCall()?.judgedReads;
    if (judged?.length) e.held = judged.map((k) => (k.startsWith('/') ? k : posix.join(opts.cwd ?? '.', k)));
    this.entries.set(id, e);
    return this.info(e);
  }

  /**
   * The files each running process was judged on when it started. It may run them at any later time, so a call that
   * writes one is asked about (what the process would run is no longer what was judged). Relative to the task
   * directory, or absolute.
   */
  heldFiles(): { id: string; command: string; files: string[] }[] {
    return [...this.entries.values()]
      .filter((e) => e.running && e.held !== undefined)
      .map((e) => ({ id: e.id, command: e.command, files: e.held! }));
  }

  /** File-backed processes: fetches new output and the exit status from the environment. */
  private async refresh(e: Entry): Promise<void> {
    if (this.streams || !e.running) return;
    for (;;) {
      const r = await this.env.exec(pollFileProcessScript(this.env.stateDir, e.id, e.log.total, FETCH_BYTES));
      const p = parsePoll(r.output);
      if (!p)
        throw new EnvironmentError('Environment.Gone', this.env.backend, `background process ${e.id}'s files are gone`);
      e.log.append(p.data);
      if (!p.running && e.log.total >= p.size) {
        e.running = false;
        e.exitCode = p.exitCode;
      }
      if (p.data.length < FETCH_BYTES) return;
    }
  }

  private info(e: Entry): ProcessInfo {
    return {
      id: e.id,
      command: e.command,
      status: e.running ? 'running' : 'exited',
      exit_code: e.exitCode,
      pty: e.pty,
      started_at: e.startedAt.toISOString(),
      output_bytes: e.log.total,
    };
  }

  /** The processes believed running now, as last seen (no refresh: cheap enough for every proxy connection). */
  runningNow(): { id: string; command: string }[] {
    return [...this.entries.values()].filter((e) => e.running).map((e) => ({ id: e.id, command: e.command }));
  }

  async list(): Promise<ProcessInfo[]> {
    for (const e of this.entries.values()) await this.refresh(e);
    return [...this.entries.values()].map((e) => this.info(e));
  }

  /** Status and the output that arrived since the last poll. */
  async poll(id: string, maxBytes: number): Promise<ProcessInfo & { new_output: Buffer; more: boolean }> {
    const e = this.entry(id);
    await this.refresh(e);
    const r = e.log.read(e.polled, maxBytes);
    e.polled = r.next;
    return { ...this.info(e), new_output: r.data, more: r.next < e.log.total };
  }

  async log(
    id: string,
    offset: number,
    limit: number,
  ): Promise<ProcessInfo & { data: Buffer; offset: number; next_offset: number; dropped_before: number }> {
    const e = this.entry(id);
    await this.refresh(e);
    const r = e.log.read(offset, limit);
    return { ...this.info(e), data: r.data, offset: r.from, next_offset: r.next, dropped_before: e.log.start };
  }

  /** Waits until the process exits or `timeoutSeconds` pass. */
  async wait(id: string, timeoutSeconds: number, signal?: AbortSignal): Promise<ProcessInfo & { timed_out: boolean }> {
    const e = this.entry(id);
    const deadline = Date.now() + timeoutSeconds * 1000;
    while (e.running && Date.now() < deadline && !signal?.aborted) {
      const left = deadline - Date.now();
      if (e.exited) await Promise.race([e.exited, sleep(Math.min(left, 1_000))]);
      else {
        await sleep(Math.min(left, 500));
        await this.refresh(e);
      }
    }
    return { ...this.info(e), timed_out: e.running };
  }

  async kill(id: string): Promise<ProcessInfo & { result: 'killed' | 'gone' | 'alive' }> {
    const e = this.entry(id);
    const result = e.running ? await this.env.kill(id) : 'gone';
    if (result === 'killed') await this.wait(id, 5);
    return { ...this.info(e), result };
  }

  async write(id: string, data: string): Promise<ProcessInfo> {
    const e = this.entry(id);
    await this.refresh(e);
    if (!e.running)
      throw new EnvironmentError(
        'Environment.Unsupported',
        this.env.backend,
        `process ${id} has exited (exit code ${e.exitCode}); it takes no more input`,
      );
    e.unterminated = `${e.unterminated ?? ''}${data}`
      .split(/[\r\n]/)
      .at(-1)!
      .slice(-4096);
    if (e.proc) e.proc.write(data);
    else {
      const r = await this.env.exec(writeFileProcessScript(this.env.stateDir, id, data));
      if (r.exitCode !== 0)
        throw new EnvironmentError('Environment.Gone', this.env.backend, `process ${id}'s input is gone`);
    }
    return this.info(e);
  }

  /**
   * The command a process was started with, its input not yet ended by a newline, and whether it reads from a terminal
   * (where line editing applies), for the approval gate.
   */
  inputOf(id: string): { command: string; unterminated: string; pty: boolean } | undefined {
    const e = this.entries.get(id);
    return e ? { command: e.command, unterminated: e.unterminated ?? '', pty: e.pty } : undefined;
  }

  /** Ends the process's standard input. */
  async closeInput(id: string): Promise<ProcessInfo> {
    const e = this.entry(id);
    if (e.proc) e.proc.end();
    else await this.env.exec(closeInputScript(this.env.stateDir, id));
    return this.info(e);
  }

  isPty(id: string): boolean {
    return this.entry(id).pty;
  }

  /** Processes last known to be running (the reaper keeps an environment that has any). */
  get running(): number {
    return [...this.entries.values()].filter((e) => e.running).length;
  }

  async killAll(): Promise<void> {
    for (const e of this.entries.values()) {
      if (e.running) await this.env.kill(e.id);
      if (!e.proc) await this.env.exec(forgetFileProcessScript(this.env.stateDir, e.id)).catch(() => undefined);
    }
  }

  /** Drops every live channel (the environment is going away). */
  detachAll(): void {
    for (const e of this.entries.values()) e.proc?.destroy();
    this.entries.clear();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
