// The Singularity/Apptainer backend: one `instance start`ed container per task, commands through `exec instance://`. Worker-only.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { spawnCli } from './process.js';
import { findOnPath, singularitySettings } from './settings.js';
import type { SingularitySettings } from './settings.js';
import type { BackendContext, BackendDefinition } from '../../backend-types.js';
import { EnvironmentError } from '../../types.js';
import type { SpawnOptions, Transport, TransportCapabilities, TransportProcess } from '../../types.js';

const BACKEND = 'singularity';
/** What Apptainer and SingularityCE print when an instance name does not resolve. */
const NO_INSTANCE = /no instance found|instance .*(not found|does not exist)|could not find instance/i;

interface CliResult {
  code: number;
  output: string;
}

/** Apptainer allows letters, digits, `.`, `_` and `-` in instance names; task ids may hold anything. */
export function instanceName(taskId: string): string {
  const clean = taskId
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 40);
  return `tether-${clean || 'task'}-${randomBytes(4).toString('hex')}`;
}

export class SingularityTransport implements Transport {
  readonly backend = BACKEND;
  readonly capabilities: TransportCapabilities = { streamsStdin: true, pty: true };
  readonly workdir: string;
  readonly name: string;
  private started = false;
  private closed = false;

  constructor(
    private readonly settings: SingularitySettings,
    private readonly ctx: Pick<BackendContext, 'taskId' | 'hostCwd'>,
  ) {
    this.workdir = settings.workdir ?? (settings.mount_cwd ? ctx.hostCwd : '/tmp');
    this.name = instanceName(ctx.taskId);
  }

  /** The `instance start` argv after the binary. */
  startArgs(): string[] {
    const s = this.settings;
    if (!s.image) throw new EnvironmentError('Environment.Config', BACKEND, 'terminal.singularity.image is not set');
    const flags: string[] = [];
    if (s.contain) flags.push('--containall');
    if (s.writable_tmpfs) flags.push('--writable-tmpfs');
    for (const b of s.bind) flags.push('--bind', b);
    if (s.mount_cwd) flags.push('--bind', `${this.ctx.hostCwd}:${this.workdir}`);
    return ['instance', 'start', ...flags, ...s.extra_args, s.image, this.name];
  }

  /** The `exec` argv after the binary. Environment goes with each exec: an instance's own variables do not reach exec'd processes under --containall. */
  execArgs(script: string): string[] {
    const env = Object.entries(this.settings.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    return ['exec', '--cwd', this.workdir, ...env, `instance://${this.name}`, 'sh', '-c', script];
  }

  async start(): Promise<void> {
    const res = await this.run(this.startArgs());
    if (res.code !== 0) {
      throw new EnvironmentError(
        'Environment.Config',
        BACKEND,
        `\`${this.settings.binary} instance start\` of ${this.settings.image} failed (exit ${res.code}): ${res.output.trim()}`,
      );
    }
    this.started = true;
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    return spawnCli({
      binary: this.settings.binary,
      args: this.execArgs(script),
      ...(opts.pty ? { pty: opts.pty } : {}),
      ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
      spawnFailed: (err) => this.binaryError(err),
      classify: async (code, tail) => {
        // 255 is also a script's own exit code; only a FATAL line plus a missing instance make it the backend's.
        if (code !== 255 || !/FATAL/.test(tail)) return undefined;
        if (NO_INSTANCE.test(tail) || !(await this.alive())) {
          return new EnvironmentError(
            'Environment.Gone',
            BACKEND,
            `instance ${this.name} no longer exists: ${lastLine(tail)}`,
          );
        }
        return undefined;
      },
    });
  }

  async alive(): Promise<boolean> {
    if (!this.started || this.closed) return false;
    const res = await this.run(['instance', 'list', '--json', this.name]).catch(() => undefined);
    if (!res || res.code !== 0) return false;
    try {
      const list = JSON.parse(res.output) as { instances?: { instance?: string }[] };
      return (list.instances ?? []).some((i) => i.instance === this.name);
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.started) return;
    // An instance already stopped answers "no instance found"; close() ignores that and any other failure.
    await this.run(['instance', 'stop', this.name]).catch(() => undefined);
  }

  private binaryError(err: NodeJS.ErrnoException): EnvironmentError {
    if (err.code === 'ENOENT') {
      return new EnvironmentError(
        'Environment.Config',
        BACKEND,
        `${this.settings.binary} is not on PATH (terminal.singularity.binary): ${err.message}`,
      );
    }
    return new EnvironmentError(
      'Environment.Unreachable',
      BACKEND,
      `cannot run ${this.settings.binary}: ${err.message}`,
    );
  }

  /** Runs the CLI to completion; stdout and stderr together (JSON from `instance list` comes on stdout alone, stderr is empty then). */
  private run(args: string[]): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      execFile(this.settings.binary, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        const spawnErr = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
        if (spawnErr && typeof spawnErr.code === 'string') {
          reject(this.binaryError(spawnErr));
          return;
        }
        const code = spawnErr && typeof spawnErr.code === 'number' ? spawnErr.code : spawnErr ? 1 : 0;
        resolve({ code, output: stdout + stderr });
      });
    });
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').trim();
}

export const singularityBackend: BackendDefinition<SingularitySettings> = {
  name: BACKEND,
  description: 'Singularity/Apptainer: one container instance per task, from a SIF file or docker:// image',
  settings: singularitySettings,
  unavailable(settings) {
    if (!findOnPath(settings.binary)) {
      return `${settings.binary} is not on PATH: install Apptainer or set terminal.singularity.binary`;
    }
    if (!settings.image) return 'terminal.singularity.image is not set (a SIF path or a docker:// URI)';
    return undefined;
  },
  create: (settings, ctx) => new SingularityTransport(settings, ctx),
};
