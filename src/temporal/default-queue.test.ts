// The default task queue: one per TETHER_HOME with a server on this machine, the shared `tether` with one elsewhere,
// TETHER_TASK_QUEUE above both.
import { describe, expect, it } from 'vitest';
import { defaultQueue, homeQueue, isLocalHost } from './default-queue.js';
import { temporalSettings } from './settings.js';

describe('the default task queue', () => {
  it("is the home's own with no TEMPORAL_ADDRESS or a loopback one, and differs between homes", () => {
    const a = { TETHER_HOME: '/tmp/home-a' };
    const b = { TETHER_HOME: '/tmp/home-b' };
    expect(defaultQueue(undefined, a)).toEqual({ taskQueue: homeQueue('/tmp/home-a'), source: 'TETHER_HOME' });
    expect(defaultQueue('127.0.0.1:7233', a).taskQueue).toBe(defaultQueue(undefined, a).taskQueue);
    expect(defaultQueue('localhost:7233', a).taskQueue).not.toBe(defaultQueue('localhost:7233', b).taskQueue);
    expect(homeQueue('/tmp/home-a')).toMatch(/^tether-[0-9a-f]{8}$/);
  });

  it('is the shared `tether` with a server elsewhere (a cluster, Temporal Cloud)', () => {
    expect(defaultQueue('temporal.internal:7233', { TETHER_HOME: '/tmp/a' })).toEqual({
      taskQueue: 'tether',
      source: 'shared',
    });
    expect(defaultQueue('ns.tmprl.cloud:7233', {}).taskQueue).toBe('tether');
  });

  it('gives way to TETHER_TASK_QUEUE, wherever the server is', () => {
    const s = temporalSettings({ TETHER_TASK_QUEUE: 'agents', TETHER_HOME: '/tmp/a' });
    expect(s).toMatchObject({ taskQueue: 'agents', queueSource: 'TETHER_TASK_QUEUE' });
    expect(temporalSettings({ TETHER_HOME: '/tmp/a' })).toMatchObject({ queueSource: 'TETHER_HOME' });
  });

  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLocalHost(h)).toBe(true);
    for (const h of ['10.0.0.1', 'example.com', '1127.0.0.1']) expect(isLocalHost(h)).toBe(false);
  });
});
