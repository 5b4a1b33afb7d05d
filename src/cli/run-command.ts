// `tether run`: starts an agent run and follows it, with an embedded worker when none is polling. Worker-only.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { modelSettingsFromEnv } from '../activities/model.js';
import { LOCAL_PREFIX } from '../models/types.js';
import { localModelSpec } from '../models/local-catalog.js';
import { localModelSettingsFor } from '../models/local-model.js';
import { installWithProgress } from './model-command.js';
import { interruptSignal, withEmbeddedWorker } from './embedded-worker.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { follow, type FollowOutcome } from '../decisions/follow.js';
import { printOutcome } from './outcome.js';
import { promptOptions } from './approval-follow.js';
import { checkToolsets, loadTools } from './tools-command.js';
import { runWasPickedUp, withTemporal } from './temporal-client.js';
import { runInput, type RunFlags } from './run-options.js';
import { hasLiveWorker } from '../temporal/live-worker.js';
import { newWorkflowId } from '../temporal/workflow-id.js';
import { CliError } from './errors.js';
import type { AgentInput } from '../common/types.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';

interface RunOptions extends RunFlags {
  prompt?: boolean;
  detach?: boolean;
  json?: boolean;
  worker: boolean;
}

function describeModel(model: string): string {
  const local = localModelSpec(model);
  if (local?.id === 'smollm2-135m')
    return `${model} (a tiny local demonstration model: set OPENAI_API_KEY or OPENAI_BASE_URL for a real one, or try --model local:qwen2.5-coder-1.5b)`;
  if (local) return `${model} (${local.title}, on this machine's CPU)`;
  if (model.startsWith(LOCAL_PREFIX)) return model;
  return `${model} at ${process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1'}`;
}

async function startAndFollow(
  client: Client,
  settings: TemporalSettings,
  input: AgentInput,
  opts: RunOptions,
): Promise<void> {
  const workflowId = newWorkflowId();
  await client.workflow.start(agentWorkflow, { taskQueue: settings.taskQueue, workflowId, args: [input] });
  if (opts.detach) {
    if (!(await hasLiveWorker(client, settings))) {
      process.stderr.write(
        `No worker polls queue '${settings.taskQueue}' yet: the run waits until 'tether worker' starts.\n`,
      );
    }
    process.stdout.write(opts.json ? `${JSON.stringify({ workflowId, status: 'running' })}\n` : `${workflowId}\n`);
    return;
  }
  process.stderr.write(`tether · ${workflowId} · model ${describeModel(input.model)} · queue ${settings.taskQueue}\n`);
  const needWorker =
    opts.worker && (!(await hasLiveWorker(client, settings)) || !(await runWasPickedUp(client, workflowId, 3_000)));
  const stop = interruptSignal();
  const asking = promptOptions(client, settings, workflowId, opts.prompt);
  const followRun = (): Promise<FollowOutcome> =>
    follow(client, workflowId, { progress: !opts.json, signal: stop.signal, ...asking });
  let outcome: FollowOutcome;
  if (needWorker) {
    outcome = (await withEmbeddedWorker(settings, stop.signal, followRun)) ?? { status: 'running', detached: true };
  } else {
    if (!opts.worker)
      process.stderr.write(`Waiting for a worker on queue '${settings.taskQueue}' ('tether worker' starts one).\n`);
    outcome = await followRun();
  }
  stop.release();
  asking.prompter?.close();
  printOutcome(workflowId, outcome, opts.json ?? false);
}

/** A local model this process will run (embedded worker) is installed now if its catalog says so, with progress. */
async function installOnFirstUse(model: string): Promise<void> {
  const spec = localModelSpec(model);
  if (!spec || localModelSettingsFor(model)) return;
  if (!spec.installOnFirstUse)
    throw new CliError(`--model ${model}: its weights are not installed: run 'npm run setup:local-model'`, 1);
  const { defaultCacheDir } = await import('../models/install/install-model.js');
  const cache = defaultCacheDir(spec);
  // A cache folder someone made (CI does) is used and filled; nobody else gets a second gigabyte on disk.
  await installWithProgress(spec, existsSync(cache) ? cache : undefined);
}

export function addRunCommand(program: Command): void {
  program
    .command('run')
    .description('Start an agent run for a task and follow it to its answer')
    .argument('<task>', 'what the agent should do')
    .option('--model <name>', 'model name (default: TETHER_MODEL, else gpt-4o-mini)')
    .option('--toolsets <names>', 'only these toolsets (comma-separated)')
    .option('--disable <names>', 'leave out these toolsets (comma-separated)')
    .option('--cwd <dir>', "the tools' working directory (default: the current directory)")
    .option('--max-turns <n>', 'stop after this many model turns (default 50)')
    .option('--max-parallel <n>', 'tool calls running at once (default 8)')
    .option(
      '--approval-mode <mode>',
      'manual (ask a person), smart (ask a model first) or off (never ask; hardline still refused); default from config.yaml',
    )
    .option(
      '--backend <name>',
      "where terminal commands run (local, docker, ssh, ...; default terminal.backend of the worker's config.yaml)",
    )
    .option(
      '--approval-timeout <seconds>',
      'a pending approval counts as denied after this long (default approvals.timeout, 1 hour)',
    )
    .option('--prompt', 'ask about approvals on this terminal even when standard input is not one')
    .option('--no-prompt', 'never ask here; decide with tether approve / deny')
    .option('--detach', 'print the workflow id and exit; follow later with tether attach')
    .option('--json', 'print one JSON object at the end: {workflowId, status, answer, turns, toolCalls}')
    .option('--no-worker', 'never run an embedded worker, even when none polls the queue')
    .action(async (task: string, opts: RunOptions) => {
      const input = runInput(task, opts);
      if (opts.worker) {
        modelSettingsFromEnv(); // a wrong OPENAI_BASE_URL fails here, before a run is started
        await installOnFirstUse(input.model);
      }
      await loadTools();
      checkToolsets(input.enabledToolsets, '--toolsets');
      checkToolsets(input.disabledToolsets, '--disable');
      await withTemporal((client, settings) => startAndFollow(client, settings, input, opts), { traced: true });
    });
}
