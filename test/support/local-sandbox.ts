// Shared by the local sandbox's tests: configuring the local backend, calling the terminal tool in a task, and
// finding processes on this machine by a marker in their command line.
import { mkdtempSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/config.js';
import { configureEnvironments } from '../../src/environments/current.js';
import { registry } from '../../src/registry/index.js';
import '../../src/tools/terminal.js';
import '../../src/tools/process.js';
import { recordingLogger } from './recording-logger.js';

export type Result = Record<string, unknown> & {
  exit_code?: number | null;
  output?: string;
  error?: string;
  sandbox?: string;
};

/** A new directory under `parent`, by its real path (the sandbox binds real paths). */
export const dir = (prefix: string, parent = tmpdir()): string => realpathSync(mkdtempSync(join(parent, prefix)));

/** A tool call in task `taskId`, run in `cwd`, its JSON result parsed. */
export async function call(tool: string, taskId: string, cwd: string, args: object): Promise<Result> {
  return JSON.parse(await registry.dispatch(tool, JSON.stringify(args), { taskId, cwd })) as Result;
}

/** Configures the local backend with `local` as its `terminal.local` section; returns the log it wrote to. */
export async function configure(local: unknown): Promise<ReturnType<typeof recordingLogger>> {
  const log = recordingLogger();
  await configureEnvironments(parseConfig({ terminal: { backend: 'local', local } }).terminal, log);
  return log;
}

/** Host pids of processes whose command line holds `marker` as one argument (seen from outside any sandbox). */
export function hostProcesses(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(marker)) pids.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return pids;
}

/** Processes this test process started whose program is `name` (other test files run their own in parallel). */
export function ownChildren(name: string): number[] {
  const pids: number[] = [];
  for (const pid of readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/)) {
    try {
      if (pid && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) pids.push(Number(pid));
    } catch {
      // ended while we looked
    }
  }
  return pids;
}
