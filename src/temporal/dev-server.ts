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

async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null)
      throw new Error(`temporal dev server exited with code ${child.exitCode} before listening`);
    if (await isListening(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`temporal dev server did not listen on port ${port} within ${timeoutMs} ms`);
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
  await waitForPort(opts.port, 30_000, child);
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
