// `tether batch FILE.jsonl`: one agent run per line, at most N at once, resumable; `tether batch list` and
// `tether batch cancel <id>`: the batches visibility knows, and stopping one as a whole. Worker-only.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { TemporalSettings } from '../temporal/settings.js';
import { parseBatchFile, type BadLine, type BatchItem } from '../batch/batch-file.js';
import { batchIdOf, runBatch, unsuccessful } from '../batch/batch-runner.js';
import { pricesFromConfig } from '../observability/prices.js';
import { progressPrinter } from '../batch/progress-bar.js';
import { modelSettingsFromEnv } from '../activities/model.js';
import type { AgentInput } from '../common/types.js';
import { CliError, positiveIntOption } from './errors.js';
import { interruptSignal, withEmbeddedWorker } from './embedded-worker.js';
import { addRunOptions, runInput, type RunFlags } from './run-options.js';
import { batchCancel, batchList } from './batch-list.js';
import { installOnFirstUse } from './model-command.js';
import { checkToolsets, loadTools } from './tools-command.js';
import { withTemporal } from './temporal-client.js';

/** How long the embedded worker gets to stop after Ctrl-C before the command exits anyway. */
const INTERRUPT_GRACE_MS = 1_500;

interface BatchFlags extends RunFlags {
  concurrency: string;
  out?: string;
  worker: boolean;
}

function inputFor(item: BatchItem, defaults: RunFlags): AgentInput {
  const input = runInput(item.task, {
    ...defaults,
    model: item.model ?? defaults.model,
    toolsets: item.toolsets ?? defaults.toolsets,
    disable: item.disable ?? defaults.disable,
    cwd: item.cwd ?? defaults.cwd,
    maxTurns: item.maxTurns !== undefined ? String(item.maxTurns) : defaults.maxTurns,
  });
  checkToolsets(input.enabledToolsets, 'toolsets');
  checkToolsets(input.disabledToolsets, 'disable');
  return input;
}

interface RunContext {
  client: Client;
  settings: TemporalSettings;
  path: string;
  items: { item: BatchItem; input: AgentInput }[];
  bad: number;
  concurrency: number;
  flags: BatchFlags;
}

/**
 * Runs the batch with a progress bar and sets the exit code: 0 when every task completed (lines skipped as bad are
 * said, not counted), 1 when a task did not complete, 130 interrupted or cancelled.
 */
async function runAndReport({ client, settings, path, items, bad, concurrency, flags }: RunContext): Promise<void> {
  const stop = interruptSignal();
  const bar = progressPrinter(process.stderr);
  // Ctrl-C: say at once how to resume, give the embedded worker a short while to hand its work back, then leave;
  // a second Ctrl-C leaves at once. The runs are on the server, so nothing is lost either way.
  stop.signal.addEventListener(
    'abort',
    () => {
      bar.end();
      process.stderr.write(
        `Interrupted: started runs go on; run the same command again to resume (finished tasks are not run again). Ctrl-C again to quit at once.\n`,
      );
      process.once('SIGINT', () => process.exit(130));
      setTimeout(() => process.exit(130), INTERRUPT_GRACE_MS).unref();
    },
    { once: true },
  );
  const outPath = flags.out ? resolve(flags.out) : undefined;
  process.stderr.write(`batch ${batchIdOf(path)} (its runs: tether list --batch ${batchIdOf(path)})\n`);
  const go = () =>
    runBatch({
      client,
      taskQueue: settings.taskQueue,
      batchKey: path,
      items,
      concurrency,
      outPath,
      signal: stop.signal,
      onProgress: (p) => bar.update(p),
      prices: pricesFromConfig(),
      onResult: (r) => {
        if (!outPath) process.stdout.write(`${JSON.stringify(r)}\n`);
      },
    });
  try {
    const done = flags.worker ? await withEmbeddedWorker(settings, stop.signal, go) : await go();
    bar.end();
    if (!done || done.interrupted) {
      process.exitCode = 130;
      return;
    }
    const failed = done.results.filter((r) => unsuccessful(r.status)).length + done.previouslyUnsuccessful;
    const notStarted = items.length - done.results.length - done.previouslyDone;
    process.stderr.write(
      `${items.length} tasks: ${done.results.length} finished now, ${done.previouslyDone} earlier, ` +
        `${failed} not completed (failed, cancelled or stopped at a limit)` +
        `${notStarted > 0 ? `, ${notStarted} not started` : ''}` +
        `${bad > 0 ? `; ${bad} line${bad === 1 ? '' : 's'} of the file skipped as shown above (not tasks: fix them and run again to add them)` : ''}\n`,
    );
    if (done.cancelled) {
      process.stderr.write(
        'A run of this batch was cancelled, so no more tasks were started: run the same command again to go on.\n',
      );
      process.exitCode = 130;
      return;
    }
    process.exitCode = failed > 0 ? 1 : 0;
  } finally {
    stop.release();
  }
}

export function addBatchCommand(program: Command): void {
  const batch = program
    .command('batch')
    .description(
      'Run one agent per line of a JSON Lines file, resumably (re-run it); batch list, batch cancel <id>: batches as a whole',
    );
  batchList(batch);
  batchCancel(batch);
  const run = batch
    .command('run', { isDefault: true })
    .description('Run the file (the default: `tether batch FILE` is `tether batch run FILE`)')
    .argument('<file>', 'the batch file')
    .option('--concurrency <n>', 'runs at once', '4')
    .option('--out <file>', 'append one JSON result line per task here (default: standard output)')
    .option('--no-worker', 'do not run an embedded worker (runs wait for tether worker)');
  addRunOptions(run, 'batch').action(async (file: string, flags: BatchFlags) => {
    const concurrency = positiveIntOption(flags.concurrency, '--concurrency');
    const path = resolve(file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
    }
    await loadTools();
    if (flags.worker) modelSettingsFromEnv();
    const parsed = parseBatchFile(text);
    const bad: BadLine[] = [...parsed.bad];
    const items: { item: BatchItem; input: AgentInput }[] = [];
    for (const item of parsed.items) {
      try {
        items.push({ item, input: inputFor(item, flags) });
      } catch (err) {
        bad.push({ line: item.line, error: (err as Error).message });
      }
    }
    for (const b of bad.sort((a, c) => a.line - c.line))
      process.stderr.write(`${file}:${b.line}: skipped: ${b.error}\n`);
    if (items.length === 0) throw new CliError(`${file}: no runnable task`, 1);
    // The embedded worker runs local models here: one not installed yet is installed once, before any run starts.
    if (flags.worker) for (const model of new Set(items.map((i) => i.input.model))) await installOnFirstUse(model);

    await withTemporal(
      (client, settings) => runAndReport({ client, settings, path, items, bad: bad.length, concurrency, flags }),
      { traced: true },
    );
  });
}
