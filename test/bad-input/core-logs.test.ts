// Temporal core's own log lines (the Rust core's WARN/ERROR lines) go to tether's log file, never to the terminal:
// a worker whose server goes away must not print them.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { freePort, startDevServer } from '../../src/temporal/dev-server.js';
import { until } from '../support/cli.js';
import { startCli } from '../support/cli-process.js';

it("a worker that loses its server logs the core's complaints to TETHER_HOME/logs/tether.log, not to the terminal", async () => {
  const server = await startDevServer({ port: await freePort(), headless: true });
  const home = mkdtempSync(join(tmpdir(), 'tether-core-logs-'));
  const worker = startCli(['worker'], {
    env: { TEMPORAL_ADDRESS: server.address, TETHER_HOME: home, TETHER_TASK_QUEUE: 'core-logs' },
  });
  try {
    await worker.waitFor(/tether worker ·/, 'the worker to start', 90_000);
    const before = worker.output();
    await server.stop();
    const log = join(home, 'logs', 'tether.log');
    await until(
      'a core log line in tether.log',
      () => existsSync(log) && readFileSync(log, 'utf8').includes('"temporal":true'),
      90_000,
    );
    const printed = worker.output().slice(before.length);
    expect(printed).not.toMatch(/temporal_sdk_core|temporal_client|\bWARN\b|\bERROR\b/);
  } finally {
    await worker.kill();
    await server.stop().catch(() => undefined);
  }
}, 240_000);
