// State every worker shares, on the real Temporal server with PostgreSQL: two `tether worker` processes with their own
// TETHER_HOMEs (two hosts) on one task queue; a note written by a run on one is read by a later run on the other
// through `memory` and found by `session_search`, from the memory workflow and the session journal the server keeps.
import { describe, expect, it } from 'vitest';
import { twoHosts } from '../support/shared-store-scenario.js';
import { workerProcessSuite } from '../support/worker-process.js';

const { client, workers, models } = workerProcessSuite();

describe('on the Temporal server with PostgreSQL', () => {
  it('a note written on one host is read and found on another', async () => {
    const r = await twoHosts(client(), workers, models);
    expect(r.read.notes).toContain(r.note);
    expect(r.found.results.some((x) => x.run === r.firstRun && x.snippet.includes(`[${r.word}]`))).toBe(true);
    expect(r.found.note).toBeUndefined();
  });
});
