// startDevServer returns only when the frontend serves: against stand-in binaries that open the port and never serve,
// or exit at once, and against the real temporal CLI. Worker-only.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Connection } from '@temporalio/client';
import { freePort, isListening, startDevServer } from './dev-server.js';
import { findTemporalBinary } from './temporal-bin.js';

function realBinary(): string | undefined {
  try {
    return findTemporalBinary();
  } catch {
    return undefined;
  }
}

describe('startDevServer', () => {
  let dir: string;
  const saved = process.env.TETHER_TEMPORAL_BIN;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tether-dev-server-'));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TETHER_TEMPORAL_BIN;
    else process.env.TETHER_TEMPORAL_BIN = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A stand-in `temporal` binary: a node script given the server's arguments. */
  function standIn(body: string): void {
    const bin = join(dir, 'temporal');
    writeFileSync(bin, `#!${process.execPath}\nconst args = process.argv.slice(2);\n${body}\n`);
    chmodSync(bin, 0o755);
    process.env.TETHER_TEMPORAL_BIN = bin;
  }

  it('does not return while the port is open but the frontend does not serve, and stops the server', async () => {
    standIn(
      "const port = Number(args[args.indexOf('--port') + 1]);\n" +
        "require('node:net').createServer((s) => s.on('error', () => {})).listen(port, '127.0.0.1');",
    );
    const port = await freePort();
    await expect(startDevServer({ port, headless: true, readyTimeoutMs: 2000 })).rejects.toThrow(
      new RegExp(`temporal dev server on port ${port} did not serve within 2 s: `),
    );
    // The stand-in was killed, so its port closes.
    for (let i = 0; i < 50 && (await isListening(port)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await isListening(port)).toBe(false);
  });

  it('says so at once when the server exits before serving', async () => {
    standIn('process.exit(3);');
    await expect(startDevServer({ port: await freePort(), headless: true })).rejects.toThrow(
      'temporal dev server exited (3) before its frontend served',
    );
  });

  it.skipIf(realBinary() === undefined)('returns with the real server answering its health check', async () => {
    const server = await startDevServer({ port: await freePort(), headless: true });
    try {
      const conn = await Connection.connect({ address: server.address, connectTimeout: 2000 });
      const { status } = await conn.healthService.check({
        service: 'temporal.api.workflowservice.v1.WorkflowService',
      });
      await conn.close();
      expect(status).toBe(1);
    } finally {
      await server.stop();
    }
  });
});
