import { describe, expect, it } from 'vitest';
import { modelCallQueue, ownQueueOf, sharedQueueOf } from './task-queues.js';

describe('task queues of a deployment', () => {
  it('every queue of a deployment leads back to its shared queue', () => {
    for (const shared of ['tether', 'tether-1a2b3c4d', 'team.a'])
      for (const q of [shared, ownQueueOf(shared, 'host-42'), modelCallQueue(shared)])
        expect(sharedQueueOf(q)).toBe(shared);
  });
});
