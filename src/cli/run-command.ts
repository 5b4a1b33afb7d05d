// `tether run`: starts an agent run and follows it, with an embedded worker when none is polling. Worker-only.
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { modelSettingsFromEnv } from '../activities/model.js';
import { LOCAL_PREFIX } from '../models/types.js';
import { localModelSpec } from '../models/local-catalog.js';
import { installOnFirstUse } from './model-command.js';
import { interruptSignal, withEmbeddedWorker } from './embedded-worker.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { follow, type FollowOutcome } from '../decisions/follow.js';
import { printOutcome } from './outcome.js';
import { promptOptions } from './approval-follow.js';
import { checkToolsets, loadTools } from './tools-command.js';
import { runPickedUpBy, withTemporal } from './temporal-client.js';
import { endpointLabel, openAISettingsFromEnv } from '../models/openai-provider.js';
import { endpointOfIdentity } from '../temporal/worker-identity.js';
import { describeQueue } from '../temporal/default-queue.js';
import { addRunOptions, runInput, type RunFlags } from './run-options.js';
import { hasLiveWorker } from '../temporal/live-worker.js';
import { newWorkflowId } from '../temporal/workflow-id.js';
import type { AgentInput } from '../common/types.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';

interface RunOptions extends RunFlags {
  prompt?: boolean;
  detach?: boolean;
  json?: boolean;
  worker: boolean;
}

/**
 * The model as the header names it: a local one runs on the CPU of the worker that takes the run; any other goes to
 * that worker's endpoint, as the worker itself reports it (`identity`: the worker that picked the run up; null: the
 * worker embedded in this process; undefined: none has yet).
 */
function describeModel(model: string, identity: string | null | undefined): string {
  const local = localModelSpec(model);
  if (local?.id === 'smollm2-135m')
    return `${model} (a tiny local model for small machines: its answers are not useful; without --model, set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)`;
  if (local) return `${model} (${local.title}, on the worker's CPU)`;
  if (model.startsWith(LOCAL_PREFIX)) return model;
  if (identity === null) return `${model} at ${endpointLabel(openAISettingsFromEnv())}`;
  const reported = endpointOfIdentity(identity);
  if (reported) return `${model} at ${reported}, as the worker that took the run reports it`;
  return identity === undefined
    ? `${model} at the endpoint of the worker that takes the run`
    : `${model} (the worker that took the run does not say its endpoint)`;
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
        `No worker polls queue ${describeQueue(settings.taskQueue, settings.queueSource)} yet: the run waits until 'tether worker' (from the same TETHER_HOME) starts.\n`,
      );
    }
    process.stdout.write(opts.json ? `${JSON.stringify({ workflowId, status: 'running' })}\n` : `${workflowId}\n`);
    return;
  }
  const startedAt = new Date();
  // The worker that takes the run reports its model endpoint; with none polling, this process embeds one.
  const live = await hasLiveWorker(client, settings);
  const identity = opts.worker && !live ? undefined : await runPickedUpBy(client, workflowId, 3_000);
  const needWorker = opts.worker && identity === undefined;
  const queue = describeQueue(settings.taskQueue, settings.queueSource);
  process.stderr.write(
    `tether · ${workflowId} · model ${describeModel(input.model, needWorker ? null : identity)} · queue ${queue}\n`,
  );
  const stop = interruptSignal();
  const asking = promptOptions(client, settings, workflowId, opts.prompt);
  const noWorker = !needWorker && identity === undefined;
  if (noWorker)
    process.stderr.write(
      `⏸ waiting for a worker on queue ${queue}: 'tether worker' (from the same TETHER_HOME) starts one.\n`,
    );
  const followRun = (): Promise<FollowOutcome> =>
    follow(client, workflowId, {
      progress: !opts.json,
      signal: stop.signal,
      announce: true,
      // A worker embedded here is starting (tools, environments): only a run left to other workers waits on its queue.
      queue: needWorker ? undefined : settings.taskQueue,
      startedAt,
      noWorkerSaid: noWorker,
      ...asking,
    });
  const outcome: FollowOutcome = needWorker
    ? ((await withEmbeddedWorker(settings, stop.signal, followRun)) ?? { status: 'running', detached: true })
    : await followRun();
  stop.release();
  asking.prompter?.close();
  printOutcome(workflowId, outcome, opts.json ?? false);
}

export function addRunCommand(program: Command): void {
  addRunOptions(
    program
      .command('run')
      .description('Start an agent run for a task and follow it to its answer')
      .argument('<task>', 'what the agent should do'),
    'run',
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
