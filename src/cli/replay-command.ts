// `tether replay`: replays recent (or given) runs' histories against this build's workflow code before a deploy. Worker-only.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DefaultLogger } from '@temporalio/worker';
import { getLogger } from '../logging/logger.js';
import { installRuntimeLogging, workflowsPath } from '../worker.js';
import {
  bundleForReplay,
  fetchRuns,
  replayRuns,
  selectionQuery,
  selectRuns,
  type ReplayVerdict,
} from '../temporal/replay-runs.js';
import { visibleText } from '../approval/visible-text.js';
import { prebuiltBundle } from '../temporal/prebuilt-bundle.js';
import { CliError, positiveIntOption } from './errors.js';
import { withTemporal } from './temporal-client.js';

const DEFAULT_LAST = 20;

/** The bundler's progress and errors go to the log file; the command prints one line of its own. */
function bundlerLogger(): DefaultLogger {
  const log = getLogger();
  return new DefaultLogger('WARN', (entry) => log.warn({ temporal: true, ...entry.meta }, entry.message));
}

interface ReplayOptions {
  last?: string;
  query?: string;
  workflows?: string;
}

/** The core's messages span lines and name internal types: the first line, bounded, is what a person reads. */
function shortDetail(detail: string): string {
  const line = visibleText(detail.split('\n')[0] ?? '', { newlines: 'escape' });
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** One line per run: what a deploy script greps and a person reads. */
export function formatVerdict(v: ReplayVerdict): string {
  const run = v.runId ? `${v.workflowId} (run ${v.runId})` : v.workflowId;
  switch (v.kind) {
    case 'ok':
      return `ok              ${run}`;
    case 'nondeterminism':
      return `NONDETERMINISM  ${run} at event ${v.eventId ?? '?'}: ${shortDetail(v.detail)}`;
    case 'failed':
      return `REPLAY FAILED   ${run}: ${shortDetail(v.detail)}`;
    case 'not-found':
      return `NOT FOUND       ${run}: no such run`;
    case 'unreadable':
      return `UNREADABLE      ${run}: its history could not be read: ${shortDetail(v.detail)}`;
  }
}

export function addReplayCommand(program: Command): void {
  program
    .command('replay')
    .description(
      "Replay agent runs' histories against this build's workflow code; exits 1 on any nondeterminism (run it before deploying a worker)",
    )
    .argument('[ids...]', 'workflow ids to check (their latest run); default: the newest runs on the task queue')
    .option('--last <n>', `how many of the newest runs (running and closed) to check`, String(DEFAULT_LAST))
    .option('--query <query>', 'a visibility query ANDed to the default (e.g. "ExecutionStatus = \'Running\'")')
    .option('--workflows <path>', 'workflow entry to replay against instead of this build (e.g. a new release)')
    .action(async (ids: string[], opts: ReplayOptions) => {
      const last = positiveIntOption(opts.last ?? String(DEFAULT_LAST), '--last');
      if (ids.length > 0 && opts.query)
        throw new CliError('give workflow ids or --query, not both (ids are checked as given)');
      const entry = opts.workflows ? resolve(opts.workflows) : workflowsPath();
      if (!existsSync(entry)) throw new CliError(`--workflows ${opts.workflows ?? ''}: no such file`);
      const counts = { ok: 0, bad: 0, unchecked: 0 };
      await withTemporal(async (client, settings) => {
        const runs = await selectRuns(client, { ids, last, taskQueue: settings.taskQueue, query: opts.query });
        if (runs.length === 0) {
          process.stderr.write(
            `no agent runs to replay in namespace ${settings.namespace} (query: ${selectionQuery({ taskQueue: settings.taskQueue, query: opts.query })})\n`,
          );
          return;
        }
        // The bundle `npm run build` made, when it was made from exactly these files (as a worker starts); else bundle now.
        const bundle = prebuiltBundle(entry).bundle ?? (await bundleForReplay(entry, bundlerLogger()));
        // The core's own warnings about a failed replay go to the log file; the verdict lines say what matters.
        // (Installed only now: an installed runtime with no worker would keep the process alive.)
        installRuntimeLogging();
        await replayRuns(
          fetchRuns(client, runs),
          bundle,
          (v) => {
            if (v.kind === 'ok') counts.ok += 1;
            else if (v.kind === 'nondeterminism' || v.kind === 'failed') counts.bad += 1;
            else counts.unchecked += 1;
            process.stdout.write(`${formatVerdict(v)}\n`);
          },
          client.options.dataConverter,
        );
        process.stderr.write(
          `replayed against ${entry}: ${counts.ok} ok, ${counts.bad} nondeterministic or failed, ${counts.unchecked} not checked\n`,
        );
      });
      // 1: this build would break a run; 2: nothing would break that we saw, but some run could not be checked.
      if (counts.bad > 0) process.exitCode = 1;
      else if (counts.unchecked > 0) process.exitCode = 2;
    });
}
