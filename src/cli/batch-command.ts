// `tether batch FILE.jsonl`: one agent run per line, at most N at once, resumable. Worker-only.
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
import { runInput, type RunFlags } from './run-options.js';
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

/** Runs the batch with a progress bar and sets the exit code: 0 all done, 1 failures or bad lines, 130 interrupted. */
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
    process.stderr.write(
      `${items.length} tasks: ${done.results.length} finished now, ${done.previouslyDone} earlier, ` +
        `${failed} not completed (failed, cancelled or stopped at a limit), ${bad} bad lines skipped\n`,
    );
    process.exitCode = failed > 0 || bad > 0 ? 1 : 0;
  } finally {
    stop.release();
  }
}

export function addBatchCommand(program: Command): void {
  program
    .command('batch')
    .description(
      'Run one agent per line of a JSON Lines file (a task string, or {"task": ..., run options}); re-run to resume',
    )
    .argument('<file>', 'the batch file')
    .option('--concurrency <n>', 'runs at once', '4')
    .option('--out <file>', 'append one JSON result line per task here (default: standard output)')
    .option('--model <name>', 'model for lines that do not name one')
    .option('--toolsets <names>', 'toolsets for lines that do not name them')
    .option('--disable <names>', 'toolsets to leave out, for lines that do not name them')
    .option('--cwd <dir>', 'working directory for lines that do not name one')
    .option('--max-turns <n>', 'turn limit for lines that do not set one')
    .option('--no-worker', 'do not run an embedded worker (runs wait for tether worker)')
    .action(async (file: string, flags: BatchFlags) => {
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

      await withTemporal(
        (client, settings) => runAndReport({ client, settings, path, items, bad: bad.length, concurrency, flags }),
        { traced: true },
      );
    });
}
