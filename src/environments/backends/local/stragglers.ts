// Without the sandbox: finds the processes a local command left behind by a variable they inherited, and kills
// them (setsid children escape the process-group kill). Worker-only (reads /proc, sends signals).
import { readdirSync, readFileSync } from 'node:fs';

/** Variables every unsandboxed local process inherits: which environment, and which command, started it. */
export const ENV_MARK = 'TETHER_LOCAL_ENV';
export const COMMAND_MARK = 'TETHER_LOCAL_COMMAND';

function marked(entry: string): number[] {
  const pids: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return pids; // not Linux: nothing to scan
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) pids.push(Number(name));
    } catch {
      // ended, or not ours to read
    }
  }
  return pids;
}

/**
 * Kills (SIGKILL) every process whose environment holds `name=value`, again until none is left (a dying parent
 * may fork once more). A process that cleared or changed its environment is not found: the sandbox is the fix.
 */
export function killMarked(name: string, value: string): number {
  let killed = 0;
  for (let round = 0; round < 5; round += 1) {
    const pids = marked(`${name}=${value}`);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed += 1;
      } catch {
        // already gone
      }
    }
  }
  return killed;
}
