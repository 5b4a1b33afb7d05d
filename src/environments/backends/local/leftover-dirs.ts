// At worker start: removes the sandbox directories (a task's private /tmp, a task network's resolv.conf) that
// workers on this machine left when they were killed. Each is named for its worker's pid; only those whose worker
// is gone are removed. Worker-only.
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../../tether-labels.js';

const NAMED = /^tether-(?:sandbox|net)-(\d+)-/;

/** Removes the directories under `dir` whose worker has ended; returns how many. */
export function removeDeadWorkersDirs(dir = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = Number(NAMED.exec(name)?.[1]);
    if (!pid || pid === process.pid || pidAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed += 1;
    } catch {
      // Another user's, or going away: not ours to insist on.
    }
  }
  return removed;
}
