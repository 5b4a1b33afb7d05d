// `tether run`: starts an agent run and follows it, with an embedded worker when none is polling. Worker-only.
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { modelSettingsFromEnv } from '../activities/model.js';
import { LOCAL_PREFIX } from '../models/types.js';
import { interruptSignal, withEmbeddedWorker } from './embedded-worker.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { follow, type FollowOutcome } from './follow.js';
import { promptOptions } from './approval-follow.js';
import { checkToolsets, loadTools } from './tools-command.js';
import { hasLiveWorker, runWasPickedUp, withTemporal } from './temporal-client.js';
import { newWorkflowId, runInput, type RunFlags } from './run-options.js';
import type { AgentInput } from '../common/types.js';
import { agentWorkflow } from '../workflows/agent-workflow.js';

interface RunOptions extends RunFlags {
  prompt?: boolean;
  detach?: boolean;
  json?: boolean;
  worker: boolean;
}

function describeModel(model: string): string {
  if (model.startsWith(LOCAL_PREFIX)) {
    return `${model} (a tiny local demonstration model: set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)`;
  }
  return `${model} at ${process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1'}`;
}

const EXIT_BY_STATUS: Record<string, number> = {
  completed: 0,
  limit_reached: 3,
  failed: 1,
  cancelled: 130,
  running: 0,
};

export function printOutcome(workflowId: string, outcome: FollowOutcome, json: boolean): void {
  if (json) {
    const r = outcome.result;
    const out = {
      workflowId,
      status: outcome.status,
      answer: r?.answer ?? null,
      turns: r?.turns ?? null,
      toolCalls: r?.toolCalls ?? null,
    };
    process.stdout.write(`${JSON.stringify(outcome.error ? { ...out, error: outcome.error } : out)}\n`);
  } else if (outcome.detached) {
    process.stderr.write(`Stopped following; the run goes on. Follow it again with: tether attach ${workflowId}\n`);
  } else if (outcome.result) {
    const r = outcome.result;
    process.stdout.write(`${r.answer}\n`);
    const mark = r.status === 'completed' ? '✓' : '■';
    process.stderr.write(
      `${mark} ${r.status} · ${r.turns} turns · ${r.toolCalls} tool calls · ${r.usage.totalTokens} tokens · ${workflowId}\n`,
    );
  } else {
    process.stderr.write(`✗ ${outcome.status}: ${outcome.error ?? ''}\n`);
  }
  process.exitCode = outcome.detached ? 130 : (EXIT_BY_STATUS[outcome.status] ?? 1);
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
      if (opts.worker) modelSettingsFromEnv(); // a wrong OPENAI_BASE_URL fails here, before a run is started
      await loadTools();
      checkToolsets(input.enabledToolsets, '--toolsets');
      checkToolsets(input.disabledToolsets, '--disable');
      await withTemporal((client, settings) => startAndFollow(client, settings, input, opts), { traced: true });
    });
}
