// Starts and stops the Temporal dev server (`temporal server start-dev`), optionally persisted in a SQLite file. Worker-only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { createConnection, createServer } from 'node:net';
import { findTemporalBinary } from './temporal-bin.js';
import { ATTRIBUTES, attributeTypeName } from '../common/search-attribute-names.js';

interface DevServerOptions {
  port: number;
  uiPort?: number;
  /** SQLite file: workflows survive a server restart. Without it, state lives in memory. */
  dbFile?: string;
  headless?: boolean;
  /** Where the server's own output goes; default: discarded. */
  logFile?: string;
  /** Keep running after this process exits (own session, not killed with us). */
  detached?: boolean;
  /** Register tether's search attributes at start (default true; false makes a server that needs `tether cluster setup`). */
  searchAttributes?: boolean;
  /** How long to wait for the frontend to serve (default 60 s). */
  readyTimeoutMs?: number;
}

interface DevServer {
  address: string;
  uiAddress?: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function isListening(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Waits until the frontend serves, not only until its port is open: the dev server opens its socket before its
 * frontend answers, and after a restart on a SQLite file under load the gap outlasted a client's 10 s connect
 * timeout. Ready is the gRPC health check of WorkflowService answering SERVING.
 */
async function waitForFrontend(port: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stillRunning = () => {
    if (exited())
      throw new Error(`temporal dev server exited (${child.exitCode ?? child.signalCode}) before its frontend served`);
  };
  // Loaded here, not at the top: client-only commands import this file and must load no Temporal code.
  const { Connection } = await import('@temporalio/client');
  let last = 'its port was not open';
  while (Date.now() < deadline) {
    stillRunning();
    if (await isListening(port)) {
      const left = Math.max(1000, deadline - Date.now());
      try {
        const conn = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: Math.min(left, 5000) });
        try {
          const { status } = await conn.withDeadline(Date.now() + Math.min(left, 5000), () =>
            conn.healthService.check({ service: 'temporal.api.workflowservice.v1.WorkflowService' }),
          );
          // grpc.health.v1.HealthCheckResponse.ServingStatus: 1 is SERVING.
          if (status === 1) return;
          last = `its health check answered status ${status}`;
        } finally {
          await conn.close();
        }
      } catch (err) {
        last = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  stillRunning();
  throw new Error(`temporal dev server on port ${port} did not serve within ${timeoutMs / 1000} s: ${last}`);
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--log-level', 'warn'];
  // The server would otherwise ask version-info.temporal.io for news at start and every day: nothing of tether's
  // leaves the machine unless someone set it up to.
  args.push('--dynamic-config-value', 'frontend.enableServerVersionCheck=false');
  if (opts.dbFile) {
    mkdirSync(dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  if (opts.searchAttributes ?? true)
    for (const k of Object.values(ATTRIBUTES))
      args.push('--search-attribute', `${k.name}=${attributeTypeName(k.type)}`);
  if (opts.headless || opts.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort), '--ui-ip', '127.0.0.1');
  let out: 'ignore' | number = 'ignore';
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    out = openSync(opts.logFile, 'a');
  }
  const child = spawn(findTemporalBinary(), args, { stdio: ['ignore', out, out], detached: opts.detached ?? false });
  if (opts.detached) child.unref();
  try {
    await waitForFrontend(opts.port, opts.readyTimeoutMs ?? 60_000, child);
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw err;
  }
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return {
    address: `127.0.0.1:${opts.port}`,
    uiAddress: opts.uiPort !== undefined && !opts.headless ? `http://127.0.0.1:${opts.uiPort}` : undefined,
    pid: child.pid!,
    child,
    stop,
  };
}

/** A free TCP port on loopback, chosen by the kernel. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
