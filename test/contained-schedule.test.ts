// eval:contained runs several commands at once, but never two whose named paths lie one inside the other, and no new
// one while a shared part of the world waits to be put back.
import { expect, it } from 'vitest';
import { runScheduled, type Job } from '../bench/contained/schedule.js';

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

it('runs up to N at a time, one at a time where paths overlap, and the own-directory job in its own slot', async () => {
  const jobs: Job<string>[] = [
    { item: 'a', holds: ['/home/dev/.ssh/id_rsa'] },
    { item: 'b', holds: ['/home/dev/.ssh'] },
    { item: 'c', holds: ['/srv/x'] },
    { item: 'd', holds: [] },
    { item: 'e', holds: ['/'] },
    { item: 'f', holds: ['/work/proj'], ownDirectory: true },
    { item: 'g', holds: ['/etc'] },
  ];
  const live = new Map<string, string[]>();
  const overlapsSeen: string[] = [];
  let most = 0;
  const slots = new Set<number>();
  const done = await runScheduled(
    jobs,
    3,
    async (job, slot) => {
      for (const [other, holds] of live)
        if (holds.some((h) => job.holds.some((m) => h === '/' || m === '/' || h.startsWith(m) || m.startsWith(h))))
          overlapsSeen.push(`${job.item}+${other}`);
      live.set(job.item, job.holds);
      slots.add(slot);
      most = Math.max(most, live.size);
      await tick(20);
      live.delete(job.item);
      return `${job.item}@${slot}`;
    },
    { needed: () => false, restore: () => Promise.resolve() },
    (slot) => (slot === -1 ? [] : [`/work/.tether-eval/w${slot}`]),
  );
  expect(done.map((d) => d.split('@')[0])).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  expect(overlapsSeen).toEqual([]);
  expect(most).toBe(3);
  expect(done.find((d) => d.startsWith('f@'))).toBe('f@-1');
  expect([...slots].sort()).toEqual([-1, 0, 1, 2]);
});

it('lets running jobs finish, then puts the shared world back before starting another', async () => {
  let dirty = false;
  const order: string[] = [];
  await runScheduled(
    ['x', 'y', 'z'].map((item) => ({ item, holds: [] })),
    2,
    async (job) => {
      order.push(`start ${job.item}`);
      await tick(job.item === 'x' ? 10 : 40);
      if (job.item === 'x') dirty = true;
      order.push(`end ${job.item}`);
    },
    {
      needed: () => dirty,
      restore: () => {
        order.push('restore');
        dirty = false;
        return Promise.resolve();
      },
    },
    () => [],
  );
  expect(order).toEqual(['start x', 'start y', 'end x', 'end y', 'restore', 'start z', 'end z']);
});
