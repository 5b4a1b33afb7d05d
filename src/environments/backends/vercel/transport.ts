// The Vercel Sandbox backend: a sandbox per environment; each command a detached `sh -c` whose logs stream in as it
// runs. Worker-only.
import { Sandbox } from '@vercel/sandbox';
import type { BackendContext, BackendDefinition } from '../../backend-types.js';
import { RemoteProcess } from '../../remote-process.js';
import { hostLabels, leftByDeadWorker, tetherLabels } from '../../tether-labels.js';
import { vercelError } from './errors.js';
import {
  VERCEL_DEFAULT_API_URL,
  vercelCredentials,
  vercelSettings,
  vercelUnavailable,
  type VercelCredentials,
  type VercelSettings,
} from './settings.js';
import { EnvironmentError, type SpawnOptions, type Transport, type TransportProcess } from '../../types.js';

const BACKEND = 'vercel_sandbox';
const LIVE = new Set(['pending', 'running']);

/**
 * `sh -c` arguments for a script. The API takes no standard input, so given input rides along as an argument
 * (base64, so any bytes survive) and is piped in; the pipeline's status is the script's own. Without input the
 * script reads /dev/null.
 */
function vercelArgs(script: string, stdin?: string): string[] {
  if (stdin === undefined) return ['-c', 'exec sh -c "$1" </dev/null', 'sh', script];
  return ['-c', 'printf %s "$1" | base64 -d | sh -c "$2"', 'sh', Buffer.from(stdin, 'utf8').toString('base64'), script];
}

interface VercelTransportOptions {
  /** Where the API is. The SDK has no setting for it, so requests are redirected in the fetch it accepts. */
  apiUrl?: string;
  env?: NodeJS.ProcessEnv;
}

/** The narrowest seam the SDK offers: its `fetch` option, rewriting the fixed base URL. */
function redirectingFetch(apiUrl: string): typeof globalThis.fetch | undefined {
  if (apiUrl === VERCEL_DEFAULT_API_URL) return undefined;
  const target = apiUrl.replace(/\/$/, '');
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return globalThis.fetch(
      url.startsWith(VERCEL_DEFAULT_API_URL) ? target + url.slice(VERCEL_DEFAULT_API_URL.length) : url,
      init,
    );
  };
}

interface Access {
  credentials: Partial<VercelCredentials>;
  fetch: typeof globalThis.fetch | undefined;
  apiUrl: string;
}

function access(opts: VercelTransportOptions): Access {
  const env = opts.env ?? process.env;
  const apiUrl = opts.apiUrl ?? VERCEL_DEFAULT_API_URL;
  const credentials = vercelCredentials(env);
  if (!credentials && !env.VERCEL_OIDC_TOKEN) {
    throw new EnvironmentError(
      'Environment.Config',
      BACKEND,
      'VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID (or VERCEL_OIDC_TOKEN) are not set',
    );
  }
  return { credentials: credentials ?? {}, fetch: redirectingFetch(apiUrl), apiUrl };
}

export class VercelTransport implements Transport {
  readonly backend = BACKEND;
  readonly capabilities = { streamsStdin: false, pty: false };
  private sandbox: Sandbox | undefined;
  private api: Access | undefined;
  private closed = false;

  constructor(
    private readonly settings: VercelSettings,
    private readonly ctx: Pick<BackendContext, 'taskId' | 'workerId'>,
    private readonly opts: VercelTransportOptions = {},
  ) {}

  get workdir(): string {
    return this.settings.workdir;
  }

  get sandboxName(): string | undefined {
    return this.sandbox?.name;
  }

  async start(): Promise<void> {
    const api = access(this.opts);
    this.api = api;
    try {
      this.sandbox = await Sandbox.create({
        runtime: this.settings.runtime,
        timeout: this.settings.timeout_seconds * 1000,
        ...(this.settings.vcpus ? { resources: { vcpus: this.settings.vcpus } } : {}),
        env: this.settings.env,
        tags: tetherLabels(this.ctx),
        ...api.credentials,
        fetch: api.fetch,
      });
    } catch (error) {
      throw vercelError(error, 'creating a sandbox', api.apiUrl);
    }
    const code = await this.run(['-c', 'mkdir -p "$1"', 'sh', this.workdir], '/');
    if (code !== 0)
      throw new EnvironmentError(
        'Environment.Config',
        BACKEND,
        `cannot create workdir ${this.workdir} in sandbox ${this.sandbox.name} (exit ${code})`,
      );
  }

  private run(args: string[], cwd: string): Promise<number | null> {
    const proc = new RemoteProcess(BACKEND);
    void this.execute(args, cwd, proc);
    return proc.exited;
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    const proc = new RemoteProcess(BACKEND);
    if (opts.pty)
      proc.fail(
        new EnvironmentError('Environment.Unsupported', BACKEND, 'no PTY through the Vercel Sandbox command API'),
      );
    else void this.execute(vercelArgs(script, opts.stdin), this.workdir, proc);
    return proc;
  }

  private async execute(args: string[], cwd: string, proc: RemoteProcess): Promise<void> {
    const sandbox = this.sandbox;
    const api = this.api;
    if (!sandbox || !api || this.closed) {
      proc.fail(
        new EnvironmentError(
          'Environment.Gone',
          BACKEND,
          this.closed ? 'the sandbox was closed' : 'spawn before start()',
        ),
      );
      return;
    }
    try {
      // The session itself, not Sandbox.runCommand: that one silently resumes a stopped sandbox, and the layer
      // above must learn the environment is gone (its state and processes went with it).
      const command = await sandbox.currentSession().runCommand({ cmd: 'sh', args, cwd, detached: true });
      for await (const log of command.logs()) {
        if (!proc.open) break;
        proc.emit(Buffer.from(log.data, 'utf8'));
      }
      if (!proc.open) return;
      proc.finish((await command.wait()).exitCode);
    } catch (error) {
      proc.fail(vercelError(error, 'running a command', api.apiUrl));
    }
  }

  async alive(): Promise<boolean> {
    const sandbox = this.sandbox;
    const api = this.api;
    if (!sandbox || !api || this.closed) return false;
    try {
      const current = await Sandbox.get({ name: sandbox.name, resume: false, ...api.credentials, fetch: api.fetch });
      return LIVE.has(current.status);
    } catch (error) {
      const mapped = vercelError(error, `checking sandbox ${sandbox.name}`, api.apiUrl);
      if (mapped.code === 'Environment.Gone') return false;
      throw mapped;
    }
  }

  /** Stops the running VM, then deletes the sandbox so no snapshot or named sandbox is left behind. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const sandbox = this.sandbox;
    const api = this.api;
    if (!sandbox || !api) return;
    try {
      await sandbox.stop().catch((error: unknown) => {
        if (vercelError(error, '', api.apiUrl).code !== 'Environment.Gone') throw error;
      });
      await sandbox.delete().catch((error: unknown) => {
        if (vercelError(error, '', api.apiUrl).code !== 'Environment.Gone') throw error;
      });
    } catch (error) {
      this.closed = false;
      throw vercelError(error, `stopping sandbox ${sandbox.name}`, api.apiUrl);
    }
  }
}

/** Stops and deletes sandboxes this host's dead workers left behind. */
async function cleanup(
  _settings: VercelSettings,
  ctx: Pick<BackendContext, 'workerId'>,
  opts: VercelTransportOptions = {},
): Promise<number> {
  const api = access(opts);
  let removed = 0;
  try {
    const pages = await Sandbox.list({ tags: hostLabels(), ...api.credentials, fetch: api.fetch });
    for await (const item of pages) {
      if (!leftByDeadWorker(item.tags, ctx.workerId)) continue;
      const sandbox = await Sandbox.get({ name: item.name, resume: false, ...api.credentials, fetch: api.fetch });
      if (LIVE.has(sandbox.status)) await sandbox.stop();
      await sandbox.delete();
      removed += 1;
    }
  } catch (error) {
    throw vercelError(error, 'removing sandboxes of dead workers', api.apiUrl);
  }
  return removed;
}

export const vercelBackend: BackendDefinition<VercelSettings> = {
  name: 'vercel_sandbox',
  description: 'a Vercel Sandbox microVM (VERCEL_TOKEN + VERCEL_TEAM_ID + VERCEL_PROJECT_ID, or VERCEL_OIDC_TOKEN)',
  settings: vercelSettings,
  unavailable: (settings) => vercelUnavailable(settings),
  create: (settings, ctx) => new VercelTransport(settings, ctx),
  cleanup: (settings, ctx) => cleanup(settings, ctx),
};

export { cleanup as vercelCleanup };
