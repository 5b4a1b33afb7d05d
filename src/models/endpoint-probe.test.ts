// The endpoint probe against real sockets on 127.0.0.1: a port nothing listens on is refused until the deadline, and
// the waits between attempts leave no listener on the caller's signal (twenty of them made Node warn of a leak).
import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { probeEndpoint } from './endpoint-probe.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

it('says a refused endpoint is refused, and leaves no listener on the signal after many attempts', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error): number => warnings.push(w);
  process.on('warning', onWarning);
  try {
    const signal = new AbortController().signal;
    const port = await closedPort();
    const r = await probeEndpoint(`http://127.0.0.1:${port}/v1`, {
      deadlineMs: 1_500,
      connectMs: 500,
      retryMs: 20,
      signal,
    });
    expect(r).toEqual({ ok: false, why: 'the connection was refused (ECONNREFUSED): nothing listens there' });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});

it('stops waiting when the signal aborts (the call answered first)', async () => {
  const ctl = new AbortController();
  const port = await closedPort();
  const probing = probeEndpoint(`http://127.0.0.1:${port}/v1`, {
    deadlineMs: 60_000,
    connectMs: 500,
    retryMs: 1_000,
    signal: ctl.signal,
  });
  setTimeout(() => ctl.abort(), 50);
  expect(await probing).toEqual({ ok: true });
  expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
});
