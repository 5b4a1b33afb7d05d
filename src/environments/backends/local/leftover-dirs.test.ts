// The sandbox directories of killed workers are removed at the next worker's start; a live worker's are kept.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeDeadWorkersDirs } from './leftover-dirs.js';

describe('removeDeadWorkersDirs', () => {
  it("removes only the directories of workers that have ended, never a live one's or anything else", () => {
    const root = mkdtempSync(join(tmpdir(), 'tether-leftovers-'));
    // A pid that has just ended (and, on a machine this quiet, is not reused in between).
    const dead = spawnSync('true').pid!;
    const names = {
      deadSandbox: `tether-sandbox-${dead}-abc123`,
      deadNet: `tether-net-${dead}-def456`,
      live: `tether-sandbox-${process.pid}-ghi789`,
      parent: `tether-net-${process.ppid}-jkl012`,
      older: 'tether-sandbox-mno345', // from before dirs were named for their worker: whose is unknown
      other: `project-${dead}-x`,
    };
    for (const name of Object.values(names)) mkdirSync(join(root, name));
    writeFileSync(join(root, names.deadSandbox, 'state'), 'x');
    expect(removeDeadWorkersDirs(root)).toBe(2);
    expect(existsSync(join(root, names.deadSandbox))).toBe(false);
    expect(existsSync(join(root, names.deadNet))).toBe(false);
    for (const kept of [names.live, names.parent, names.older, names.other])
      expect(existsSync(join(root, kept))).toBe(true);
  });

  it('a directory it cannot list is no error', () => {
    expect(removeDeadWorkersDirs('/nonexistent/tether-dir')).toBe(0);
  });
});
