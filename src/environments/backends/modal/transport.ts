// The Modal backend: one Modal Sandbox per task through the official `modal` SDK; commands via sandbox.exec. Worker-only.
import { ModalClient } from 'modal';
import type { Logger as ModalLogger, Sandbox } from 'modal';
import type { Logger } from '../../../logging/logger.js';
import type { BackendContext, BackendDefinition } from '../../backend-types.js';
import { modalError } from './errors.js';
import { modalProcess } from './process.js';
import { modalCredentialsMissing, modalSettings } from './settings.js';
import type { ModalSettings } from './settings.js';
import { EnvironmentError } from '../../types.js';
import type { SpawnOptions, Transport, TransportCapabilities, TransportProcess } from '../../types.js';

const BACKEND = 'modal';
/** What a sandbox's exec reports for a process killed with the sandbox (SIGKILL). */
const KILLED = 137;

/** The SDK logs `message, key, value, ...`; tether logs `{fields}, message`. */
function sdkLogger(log: Logger): ModalLogger {
  const fields = (args: unknown[]): Record<string, unknown> => {
    const out: Record<string, unknown> = { backend: BACKEND };
    for (let i = 0; i + 1 < args.length; i += 2) out[String(args[i])] = args[i + 1];
    return out;
  };
  return {
    debug: (m, ...a: unknown[]) => log.debug(fields(a), m),
    info: (m, ...a: unknown[]) => log.info(fields(a), m),
    warn: (m, ...a: unknown[]) => log.warn(fields(a), m),
    error: (m, ...a: unknown[]) => log.error(fields(a), m),
  };
}

export class ModalTransport implements Transport {
  readonly backend = BACKEND;
  /** The SDK's exec streams stdin and can allocate a PTY (fixed at 80x24 by the SDK; the size is set with stty). */
  readonly capabilities: TransportCapabilities = { streamsStdin: true, pty: true };
  readonly workdir: string;
  private client: ModalClient | undefined;
  private sandbox: Sandbox | undefined;
  private closed = false;

  constructor(
    private readonly settings: ModalSettings,
    private readonly ctx: Pick<BackendContext, 'taskId' | 'workerId' | 'log'>,
    /** The SDK reads MODAL_SERVER_URL, MODAL_TOKEN_ID/SECRET or ~/.modal.toml itself. */
    private readonly newClient: () => ModalClient = () => new ModalClient({ logger: sdkLogger(ctx.log) }),
  ) {
    this.workdir = settings.workdir;
  }

  /** The Modal sandbox id, once started. */
  get sandboxId(): string | undefined {
    return this.sandbox?.sandboxId;
  }

  private api(): string {
    return this.client?.profile.serverUrl ?? process.env['MODAL_SERVER_URL'] ?? 'https://api.modal.com:443';
  }

  async start(): Promise<void> {
    const s = this.settings;
    let step = 'creating the Modal client';
    try {
      this.client = this.newClient();
      step = `looking up app ${s.app} at ${this.api()}`;
      const app = await this.client.apps.fromName(s.app, { createIfMissing: true });
      step = `creating a sandbox from ${s.image} in app ${s.app} at ${this.api()}`;
      const image = this.client.images.fromRegistry(s.image);
      this.sandbox = await this.client.sandboxes.create(app, image, {
        timeoutMs: s.timeout_seconds * 1000,
        workdir: s.workdir,
        env: s.env,
        // Tags let leftovers of a dead worker be found in Modal's dashboard or by `modal sandbox list`.
        tags: { tether_worker: this.ctx.workerId, tether_task: this.ctx.taskId.slice(0, 60) },
        ...(s.cpu !== undefined ? { cpu: s.cpu } : {}),
        ...(s.memory_mib !== undefined ? { memoryMiB: s.memory_mib } : {}),
      });
    } catch (err) {
      throw modalError(err, step, 'start');
    }
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    const sandbox = this.sandbox;
    // The SDK's PTY is always 80x24; stty sets the size asked for before the script runs.
    const body = opts.pty ? `stty cols ${opts.pty.cols} rows ${opts.pty.rows} 2>/dev/null; ${script}` : script;
    const what = `exec in sandbox ${sandbox?.sandboxId ?? '(not started)'} at ${this.api()}`;
    return modalProcess({
      start: async () => {
        if (!sandbox || this.closed) {
          throw new EnvironmentError(
            'Environment.Gone',
            BACKEND,
            'the sandbox is not running (start() was not called or close() was)',
          );
        }
        return sandbox.exec(['sh', '-c', body], {
          mode: 'binary',
          workdir: this.workdir,
          ...(opts.pty ? { pty: true } : {}),
        });
      },
      ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
      fail: async (err) => {
        const mapped = modalError(err, what);
        if (mapped.code === 'Environment.Gone' || mapped.code === 'Environment.Unreachable') return mapped;
        // A sandbox that ended makes later calls fail in assorted ways; say it is gone when it is.
        return (await this.alive().catch(() => true)) ? mapped : this.goneError(mapped.message);
      },
      gone: async (code) =>
        code === KILLED && !(await this.alive().catch(() => true))
          ? this.goneError('the process was killed with it')
          : undefined,
    });
  }

  private goneError(detail: string): EnvironmentError {
    return new EnvironmentError(
      'Environment.Gone',
      BACKEND,
      `sandbox ${this.sandbox?.sandboxId ?? ''} has ended: ${detail}`,
    );
  }

  /** Polls the sandbox: running means alive. Throws Environment.Unreachable when the API cannot be asked. */
  async alive(): Promise<boolean> {
    if (!this.sandbox || this.closed) return false;
    try {
      return (await this.sandbox.poll()) === null;
    } catch (err) {
      const mapped = modalError(err, `polling sandbox ${this.sandbox.sandboxId} at ${this.api()}`);
      if (mapped.code === 'Environment.Unreachable') throw mapped;
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const sandbox = this.sandbox;
    try {
      // An already-terminated sandbox accepts terminate again; any failure here leaves it to its own timeout.
      await sandbox?.terminate();
    } catch (err) {
      this.ctx.log.warn(
        { backend: BACKEND, sandbox: sandbox?.sandboxId, err: String(err) },
        'terminating the Modal sandbox failed',
      );
    } finally {
      sandbox?.detach();
      this.client?.close();
    }
  }
}

export const modalBackend: BackendDefinition<ModalSettings> = {
  name: BACKEND,
  description: 'Modal: one cloud sandbox per task, through the Modal SDK',
  settings: modalSettings,
  unavailable: () => modalCredentialsMissing(),
  create: (settings, ctx) => new ModalTransport(settings, ctx),
};
