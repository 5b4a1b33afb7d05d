// The Daytona backend: a sandbox per environment; each command runs as `sh -c` in a toolbox session, its output
// streamed over the SDK's log socket. Worker-only.
import { randomUUID } from 'node:crypto';
import {
  Daytona,
  type CreateSandboxFromImageParams,
  type CreateSandboxFromSnapshotParams,
  type Sandbox,
} from '@daytonaio/sdk';
import type { BackendContext, BackendDefinition } from '../../backend-types.js';
import { daytonaError, daytonaGone } from './errors.js';
import { RemoteProcess } from '../../remote-process.js';
import { daytonaApiKey, daytonaSettings, daytonaUnavailable, type DaytonaSettings } from './settings.js';
import { hostLabels, leftByDeadWorker, tetherLabels } from '../../tether-labels.js';
import { shQuote } from '../../shell-scripts.js';
import { EnvironmentError, type SpawnOptions, type Transport, type TransportProcess } from '../../types.js';

const BACKEND = 'daytona';
/** How long to wait for the exit code to be recorded after the log stream closed. */
const EXIT_CODE_WAIT_MS = 5_000;
const CREATE_TIMEOUT_S = 180;

/**
 * The session shell line for a script. Sessions cannot close a command's input, so given input travels inside
 * the line (base64, so any bytes survive) and is piped in; a pipeline's status is its last command's, so the
 * script's own exit code comes back. Without input the script reads /dev/null instead of waiting forever. Sessions
 * start in the home directory, so the line enters the workdir first.
 */
function daytonaCommandLine(script: string, dir: string, stdin?: string): string {
  const cd = `cd ${shQuote(dir)} && `;
  if (stdin === undefined) return `${cd}sh -c ${shQuote(script)} </dev/null`;
  const encoded = Buffer.from(stdin, 'utf8').toString('base64');
  return `${cd}printf %s ${shQuote(encoded)} | base64 -d | sh -c ${shQuote(script)}`;
}

function daytonaClient(settings: DaytonaSettings, apiKey: string | undefined): Daytona {
  if (!apiKey) throw new EnvironmentError('Environment.Config', BACKEND, 'DAYTONA_API_KEY is not set');
  try {
    // Polling, not the SDK's event socket: state is read only at start and by alive(), so a socket per sandbox buys nothing.
    return new Daytona({
      apiKey,
      apiUrl: settings.api_url,
      target: settings.target ?? process.env.DAYTONA_TARGET,
      useDeprecatedPolling: true,
    });
  } catch (error) {
    throw new EnvironmentError(
      'Environment.Config',
      BACKEND,
      `cannot configure the Daytona client: ${(error as Error).message}`,
    );
  }
}

function createParams(
  settings: DaytonaSettings,
  labels: Record<string, string>,
): CreateSandboxFromImageParams | CreateSandboxFromSnapshotParams {
  const base = { envVars: settings.env, labels, autoStopInterval: settings.auto_stop_minutes };
  if (!settings.image) return settings.snapshot ? { ...base, snapshot: settings.snapshot } : base;
  const resources: { cpu?: number; memory?: number } = {};
  if (settings.cpu !== undefined) resources.cpu = settings.cpu;
  if (settings.memory_gib !== undefined) resources.memory = settings.memory_gib;
  return { ...base, image: settings.image, resources };
}

export class DaytonaTransport implements Transport {
  readonly backend = BACKEND;
  readonly capabilities = { streamsStdin: false, pty: false };
  private sandbox: Sandbox | undefined;
  private dir = '';
  /** Sessions whose last command finished; reused so a long run does not leave one session per command. */
  private readonly idleSessions: string[] = [];
  private closed = false;

  constructor(
    private readonly settings: DaytonaSettings,
    private readonly ctx: Pick<BackendContext, 'taskId' | 'workerId'>,
    private readonly apiKey: string | undefined = daytonaApiKey(),
  ) {}

  get workdir(): string {
    return this.dir;
  }

  /** The sandbox's id once created (for logs and tests). */
  get sandboxId(): string | undefined {
    return this.sandbox?.id;
  }

  async start(): Promise<void> {
    const client = daytonaClient(this.settings, this.apiKey);
    const labels = tetherLabels(this.ctx);
    try {
      this.sandbox = await client.create(createParams(this.settings, labels), { timeout: CREATE_TIMEOUT_S });
    } catch (error) {
      throw daytonaError(error, 'creating a sandbox', this.settings.api_url);
    }
    try {
      this.dir = this.settings.workdir ?? ((await this.sandbox.getUserHomeDir()) || '/home/daytona');
    } catch (error) {
      throw daytonaError(error, `reading the home directory of sandbox ${this.sandbox.id}`, this.settings.api_url);
    }
    if (this.settings.workdir) {
      const dir = this.dir;
      this.dir = '/';
      const code = await this.spawn(`mkdir -p ${shQuote(dir)}`).exited;
      this.dir = dir;
      if (code !== 0)
        throw new EnvironmentError(
          'Environment.Config',
          BACKEND,
          `cannot create workdir ${this.dir} in sandbox ${this.sandbox.id} (exit ${code})`,
        );
    }
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    const proc = new RemoteProcess(BACKEND);
    if (opts.pty)
      proc.fail(
        new EnvironmentError(
          'Environment.Unsupported',
          BACKEND,
          'no PTY on Daytona sandboxes (commands run in toolbox sessions)',
        ),
      );
    else if (!this.sandbox || this.closed)
      proc.fail(
        new EnvironmentError(
          'Environment.Gone',
          BACKEND,
          this.closed ? 'the sandbox was closed' : 'spawn before start()',
        ),
      );
    else void this.run(this.sandbox, daytonaCommandLine(script, this.dir || '.', opts.stdin), proc);
    return proc;
  }

  private async run(sandbox: Sandbox, line: string, proc: RemoteProcess): Promise<void> {
    try {
      let session = this.idleSessions.pop();
      if (!session) {
        session = `tether-${randomUUID()}`;
        await sandbox.process.createSession(session);
      }
      const { cmdId } = await sandbox.process.executeSessionCommand(session, { command: line, runAsync: true });
      const deliver = (text: string): void => proc.emit(Buffer.from(text, 'utf8'));
      await sandbox.process.getSessionCommandLogs(session, cmdId, deliver, deliver);
      const code = await this.exitCode(sandbox, session, cmdId);
      this.idleSessions.push(session);
      proc.finish(code);
    } catch (error) {
      proc.fail(await this.explain(error, 'running a command'));
    }
  }

  private async exitCode(sandbox: Sandbox, session: string, cmdId: string): Promise<number | null> {
    const deadline = Date.now() + EXIT_CODE_WAIT_MS;
    for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
      const command = await sandbox.process.getSessionCommand(session, cmdId);
      if (typeof command.exitCode === 'number') return command.exitCode;
      if (Date.now() > deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** A failed toolbox call says little by itself; the sandbox's state tells a dead sandbox from a broken call. */
  private async explain(error: unknown, what: string): Promise<EnvironmentError> {
    const mapped = daytonaError(error, what, this.settings.api_url);
    const status = (error as { statusCode?: unknown } | null)?.statusCode;
    if (status === 401 || status === 403 || !this.sandbox) return mapped;
    try {
      await this.sandbox.refreshData();
      if (this.sandbox.state !== 'started')
        return daytonaGone(this.sandbox.id, this.sandbox.state ?? 'in an unknown state');
      return mapped;
    } catch (refreshError) {
      return daytonaError(refreshError, `checking sandbox ${this.sandbox.id}`, this.settings.api_url);
    }
  }

  async alive(): Promise<boolean> {
    if (!this.sandbox || this.closed) return false;
    try {
      await this.sandbox.refreshData();
    } catch (error) {
      const mapped = daytonaError(error, `checking sandbox ${this.sandbox.id}`, this.settings.api_url);
      if (mapped.code === 'Environment.Gone') return false;
      throw mapped;
    }
    return this.sandbox.state === 'started';
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const sandbox = this.sandbox;
    if (!sandbox) return;
    try {
      await sandbox.delete(60);
    } catch (error) {
      const mapped = daytonaError(error, `deleting sandbox ${sandbox.id}`, this.settings.api_url);
      if (mapped.code !== 'Environment.Gone') {
        this.closed = false;
        throw mapped;
      }
    }
  }
}

/** Deletes sandboxes this host's dead workers left behind. */
async function cleanup(
  settings: DaytonaSettings,
  ctx: Pick<BackendContext, 'workerId'>,
  apiKey = daytonaApiKey(),
): Promise<number> {
  const client = daytonaClient(settings, apiKey);
  let removed = 0;
  try {
    for await (const sandbox of client.list({ labels: hostLabels() })) {
      if (!leftByDeadWorker(sandbox.labels, ctx.workerId)) continue;
      try {
        await sandbox.delete(60);
        removed += 1;
      } catch (error) {
        if (daytonaError(error, 'deleting', settings.api_url).code !== 'Environment.Gone') throw error;
      }
    }
  } catch (error) {
    throw daytonaError(error, 'removing sandboxes of dead workers', settings.api_url);
  }
  return removed;
}

export const daytonaBackend: BackendDefinition<DaytonaSettings> = {
  name: 'daytona',
  description: 'a Daytona cloud sandbox (DAYTONA_API_KEY)',
  settings: daytonaSettings,
  unavailable: (settings) => daytonaUnavailable(settings),
  create: (settings, ctx) => new DaytonaTransport(settings, ctx),
  cleanup: (settings, ctx) => cleanup(settings, ctx),
};

export { cleanup as daytonaCleanup };
