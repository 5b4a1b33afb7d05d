// A fake Modal API on loopback that the real `modal` SDK talks to: control plane and task command router, running exec'd commands as local processes. Worker-only (test support).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer, ServerError, Status, type CallContext, type Server } from 'nice-grpc';
import * as pty from 'node-pty';

/** A loosely typed protobuf message: the SDK's generated codecs do the real encoding. */
type Msg = Record<string, unknown>;
interface ServiceDefinition {
  methods: Record<string, { requestStream: boolean; responseStream: boolean }>;
}
type Handler = (req: Msg, ctx: CallContext) => unknown;

/**
 * The SDK ships the service definitions it was generated with but does not export them. Compiling its CommonJS
 * bundle once more with one extra export line reaches them without copying any of the schema.
 */
function loadDefinitions(): { control: ServiceDefinition; router: ServiceDefinition } {
  const require = createRequire(import.meta.url);
  const file = require.resolve('modal').replace(/index\.js$/, 'index.cjs');
  const mod = new Module(file) as Module & { _compile(src: string, file: string): void };
  mod.filename = file;
  // Node's own resolver paths for a module in that directory, so the bundle's require() calls resolve as usual.
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file));
  mod._compile(
    `${readFileSync(file, 'utf8')}\nmodule.exports.__tetherDefs = { control: ModalClientDefinition, router: TaskCommandRouterDefinition };`,
    file,
  );
  return (mod.exports as { __tetherDefs: { control: ServiceDefinition; router: ServiceDefinition } }).__tetherDefs;
}

interface Exec {
  child?: ChildProcess;
  term?: pty.IPty;
  out: [Buffer[], Buffer[]];
  stdinOffset: number;
  done: boolean;
  code?: number;
  signal?: number;
  changed: Set<() => void>;
}

export interface FakeSandbox {
  id: string;
  taskId: string;
  appId: string;
  dir: string;
  definition: Msg;
  /** Environment given at creation (SandboxCreateV2 carries it beside the definition). */
  secretSources: Msg[];
  tags: Record<string, string>;
  terminated: boolean;
  execs: Map<string, Exec>;
  waiters: Set<() => void>;
}

export interface FakeModal {
  url: string;
  tokenId: string;
  tokenSecret: string;
  sandboxes: Map<string, FakeSandbox>;
  apps: Map<string, string>;
  images: string[][];
  /** Method names as called, in order. */
  calls: string[];
  stop(): Promise<void>;
}

function fakeJwt(): string {
  const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'none' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
}

function notify(set: Set<() => void>): void {
  for (const f of [...set]) f();
}

function waitChange(set: Set<() => void>, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      set.delete(done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    set.add(done);
    signal.addEventListener('abort', done);
  });
}

/** Unimplemented RPCs answer UNIMPLEMENTED, so an SDK call this fake does not know about fails loudly. */
function withDefaults(def: ServiceDefinition, impl: Record<string, Handler>, calls: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(def.methods)) {
    const h = impl[name];
    const missing = (): never => {
      throw new ServerError(Status.UNIMPLEMENTED, `fake Modal API does not implement ${name}`);
    };
    if (m.responseStream) {
      out[name] = async function* (req: Msg, ctx: CallContext) {
        calls.push(name);
        if (!h) return missing();
        yield* (h as (r: Msg, c: CallContext) => AsyncIterable<Msg>)(req, ctx);
      };
    } else {
      out[name] = async (req: Msg, ctx: CallContext) => {
        calls.push(name);
        return h ? h(req, ctx) : missing();
      };
    }
  }
  return out;
}

export async function startFakeModal(opts: { tokenId?: string; tokenSecret?: string } = {}): Promise<FakeModal> {
  const defs = loadDefinitions();
  const tokenId = opts.tokenId ?? 'ak-fake';
  const tokenSecret = opts.tokenSecret ?? 'as-fake';
  const root = mkdtempSync(join(tmpdir(), 'tether-fake-modal-'));
  const sandboxes = new Map<string, FakeSandbox>();
  const apps = new Map<string, string>();
  const images: string[][] = [];
  const calls: string[] = [];
  let routerUrl = '';
  let seq = 0;
  const jwt = fakeJwt();

  const authControl = (ctx: CallContext): void => {
    if (ctx.metadata.get('x-modal-token-id') !== tokenId || ctx.metadata.get('x-modal-token-secret') !== tokenSecret) {
      throw new ServerError(Status.UNAUTHENTICATED, 'Token ID or secret is incorrect');
    }
  };
  const sandbox = (id: unknown): FakeSandbox => {
    const sb = sandboxes.get(String(id));
    if (!sb) throw new ServerError(Status.NOT_FOUND, `Sandbox ${String(id)} not found`);
    return sb;
  };
  const byTask = (taskId: unknown, ctx: CallContext): FakeSandbox => {
    if (ctx.metadata.get('authorization') !== `Bearer ${jwt}`)
      throw new ServerError(Status.UNAUTHENTICATED, 'bad router token');
    const sb = [...sandboxes.values()].find((s) => s.taskId === taskId);
    if (!sb) throw new ServerError(Status.NOT_FOUND, `Task ${String(taskId)} not found`);
    if (sb.terminated) throw new ServerError(Status.NOT_FOUND, `Sandbox ${sb.id} has already finished`);
    return sb;
  };
  const exec = (sb: FakeSandbox, execId: unknown): Exec => {
    const e = sb.execs.get(String(execId));
    if (!e) throw new ServerError(Status.NOT_FOUND, `exec ${String(execId)} not found`);
    return e;
  };
  const finishExec = (e: Exec, code: number | null, signal: number | null): void => {
    e.done = true;
    if (signal) e.signal = signal;
    else e.code = code ?? 0;
    notify(e.changed);
  };

  const control: Record<string, Handler> = {
    authTokenGet: (_req, ctx) => {
      authControl(ctx);
      return { token: fakeJwt() };
    },
    environmentGetOrCreate: (_req, ctx) => {
      authControl(ctx);
      return { environmentId: 'en-fake', metadata: { name: 'main', settings: { imageBuilderVersion: '2025.06' } } };
    },
    appGetOrCreate: (req, ctx) => {
      authControl(ctx);
      const name = String(req['appName']);
      if (!apps.has(name)) apps.set(name, `ap-${++seq}`);
      return { appId: apps.get(name) };
    },
    imageGetOrCreate: (req, ctx) => {
      authControl(ctx);
      const image = req['image'] as Msg | undefined;
      images.push((image?.['dockerfileCommands'] as string[] | undefined) ?? []);
      return { imageId: `im-${++seq}`, result: { status: 1 } };
    },
    sandboxCreateV2: (req, ctx) => {
      authControl(ctx);
      const id = `sb-${++seq}`;
      const sb: FakeSandbox = {
        id,
        taskId: `ta-${seq}`,
        appId: String(req['appId']),
        dir: mkdtempSync(join(root, `${id}-`)),
        definition: (req['definition'] as Msg | undefined) ?? {},
        secretSources: (req['secretSources'] as Msg[] | undefined) ?? [],
        tags: Object.fromEntries(
          ((req['tags'] as { tagName: string; tagValue: string }[] | undefined) ?? []).map((t) => [
            t.tagName,
            t.tagValue,
          ]),
        ),
        terminated: false,
        execs: new Map(),
        waiters: new Set(),
      };
      sandboxes.set(id, sb);
      return { sandboxId: id, taskId: sb.taskId, commandRouterAccess: { url: routerUrl, jwt }, tunnels: [] };
    },
    sandboxGetCommandRouterAccess: (req, ctx) => {
      authControl(ctx);
      sandbox(req['sandboxId']);
      return { url: routerUrl, jwt };
    },
    sandboxGetTaskIdV2: (req, ctx) => {
      authControl(ctx);
      const sb = sandbox(req['sandboxId']);
      return sb.terminated ? { taskResult: { status: 3 } } : { taskId: sb.taskId };
    },
    sandboxWaitV2: async (req, ctx) => {
      authControl(ctx);
      const sb = sandbox(req['sandboxId']);
      const timeout = Number(req['timeout'] ?? 0);
      if (!sb.terminated && timeout > 0) await waitChange(sb.waiters, timeout * 1000, ctx.signal);
      return sb.terminated ? { result: { status: 3, exitcode: 0 } } : {};
    },
    sandboxTerminateV2: (req, ctx) => {
      authControl(ctx);
      const sb = sandbox(req['sandboxId']);
      sb.terminated = true;
      for (const e of sb.execs.values()) {
        if (e.done) continue;
        if (e.child?.pid) {
          try {
            process.kill(-e.child.pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
        e.term?.kill('SIGKILL');
      }
      notify(sb.waiters);
      return {};
    },
  };

  const router: Record<string, Handler> = {
    taskExecStart: (req, ctx) => {
      const sb = byTask(req['taskId'], ctx);
      const args = (req['commandArgs'] as string[] | undefined) ?? [];
      const [cmd, ...rest] = args;
      if (!cmd) throw new ServerError(Status.INVALID_ARGUMENT, 'empty command');
      const workdir = (req['workdir'] as string | undefined) || (sb.definition['workdir'] as string | undefined);
      // The sandbox's paths do not exist here; a workdir that does exist on this host is honoured, others map to the sandbox's directory.
      const cwd = workdir && existsSync(workdir) ? workdir : sb.dir;
      // A remote machine's own environment, not this worker's.
      const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: sb.dir };
      const sources = [...sb.secretSources, ...((req['secretSources'] as Msg[] | undefined) ?? [])];
      for (const s of sources)
        Object.assign(env, ((s['env'] as Msg | undefined)?.['contents'] as Record<string, string>) ?? {});
      const e: Exec = { out: [[], []], stdinOffset: 0, done: false, changed: new Set() };
      const ptyInfo = req['ptyInfo'] as Msg | undefined;
      if (ptyInfo?.['enabled']) {
        e.term = pty.spawn(cmd, rest, {
          cwd,
          env,
          cols: Number(ptyInfo['winszCols']),
          rows: Number(ptyInfo['winszRows']),
        });
        e.term.onData((d) => {
          e.out[0].push(Buffer.from(d));
          notify(e.changed);
        });
        e.term.onExit(({ exitCode, signal }) => setTimeout(() => finishExec(e, exitCode, signal ?? null), 50));
      } else {
        const child = spawn(cmd, rest, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
        e.child = child;
        child.stdin.on('error', () => undefined);
        child.stdout.on('data', (d: Buffer) => (e.out[0].push(d), notify(e.changed)));
        child.stderr.on('data', (d: Buffer) => (e.out[1].push(d), notify(e.changed)));
        child.on('error', (err) => (e.out[1].push(Buffer.from(`${err.message}\n`)), finishExec(e, 127, null)));
        child.on('close', (code, signal) => finishExec(e, code, signal ? (constants.signals[signal] ?? null) : null));
      }
      sb.execs.set(String(req['execId']), e);
      return {};
    },
    taskExecStdinWrite: (req, ctx) => {
      const e = exec(byTask(req['taskId'], ctx), req['execId']);
      const data = Buffer.from((req['data'] as Uint8Array | undefined) ?? new Uint8Array());
      const offset = Number(req['offset'] ?? 0);
      // A retried write repeats an offset already taken; only the part past what was written counts.
      const fresh = data.subarray(Math.max(0, e.stdinOffset - offset));
      if (offset <= e.stdinOffset && fresh.length > 0) {
        e.stdinOffset += fresh.length;
        if (e.term) e.term.write(fresh.toString('utf8'));
        else e.child?.stdin?.write(fresh);
      }
      if (req['eof']) {
        if (e.term) e.term.write('\x04');
        else e.child?.stdin?.end();
      }
      return {};
    },
    taskExecStdioRead: async function* (req, ctx) {
      const sb = byTask(req['taskId'], ctx);
      const e = exec(sb, req['execId']);
      const chunks = e.out[Number(req['fileDescriptor'] ?? 0) === 1 ? 1 : 0];
      let sent = 0;
      let offset = Number(req['offset'] ?? 0);
      // Skip what the client already has when it resumes from an offset.
      while (!ctx.signal.aborted) {
        while (sent < chunks.length) {
          let chunk = chunks[sent++] as Buffer;
          if (offset > 0) {
            const skip = Math.min(offset, chunk.length);
            offset -= skip;
            chunk = chunk.subarray(skip);
          }
          if (chunk.length > 0) yield { data: chunk };
        }
        if (e.done) return;
        await waitChange(e.changed, 1000, ctx.signal);
      }
    },
    taskExecWait: async (req, ctx) => {
      const e = exec(byTask(req['taskId'], ctx), req['execId']);
      while (!e.done && !ctx.signal.aborted) await waitChange(e.changed, 1000, ctx.signal);
      return e.signal ? { signal: e.signal } : { code: e.code };
    },
    taskExecPoll: (req, ctx) => {
      const e = exec(byTask(req['taskId'], ctx), req['execId']);
      if (!e.done) return {};
      return e.signal ? { signal: e.signal } : { code: e.code };
    },
  };

  const server: Server = createServer();
  server.add(defs.control as never, withDefaults(defs.control, control, calls) as never);
  server.add(defs.router as never, withDefaults(defs.router, router, calls) as never);
  const port = await server.listen('127.0.0.1:0');
  // The SDK insists on an https router URL and then, because the API is on localhost, dials it without TLS.
  routerUrl = `https://127.0.0.1:${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    tokenId,
    tokenSecret,
    sandboxes,
    apps,
    images,
    calls,
    async stop() {
      for (const sb of sandboxes.values()) {
        for (const e of sb.execs.values()) {
          if (!e.done && e.child?.pid) {
            try {
              process.kill(-e.child.pid, 'SIGKILL');
            } catch {
              // Already gone.
            }
          }
          e.term?.kill('SIGKILL');
        }
      }
      server.forceShutdown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
