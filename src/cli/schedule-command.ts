// `tether schedule create|list|describe|pause|unpause|trigger|delete`: agent runs on a timetable (Temporal Schedules). Worker-only.
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { ScheduleAlreadyRunning, type Client, type ScheduleDescription } from '@temporalio/client';
import {
  isOverlapName,
  OVERLAP_POLICIES,
  parseEvery,
  scheduleIdProblem,
  scheduleOptions,
} from '../schedules/schedule-options.js';
import type { AgentInput } from '../common/types.js';
import { CliError } from './errors.js';
import { addRunOptions, runInput, type RunFlags } from './run-options.js';
import { checkToolsets, loadTools } from './tools-command.js';
import { withTemporal } from './temporal-client.js';

function summary(d: ScheduleDescription): Record<string, unknown> {
  const action = d.action as { workflowType?: string; args?: unknown[] };
  const input = action.args?.[0] as AgentInput | undefined;
  return {
    scheduleId: d.scheduleId,
    task: input?.task ?? null,
    model: input?.model ?? null,
    cwd: input?.cwd ?? null,
    toolsets: input?.enabledToolsets ?? null,
    disabledToolsets: input?.disabledToolsets ?? null,
    approvalMode: input?.approvalMode ?? "the worker's approvals.mode",
    maxTurns: input?.limits?.maxTurns ?? null,
    taskQueue: (d.action as { taskQueue?: string }).taskQueue ?? null,
    cron: (d.memo as { cron?: string } | undefined)?.cron ?? null,
    every: (d.memo as { every?: string } | undefined)?.every ?? null,
    overlap: d.policies.overlap,
    paused: d.state.paused,
    note: d.state.note ?? null,
    nextRuns: d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
    recentRuns: d.info.recentActions.map((a) => ({
      workflowId: a.action.workflow.workflowId,
      at: a.takenAt.toISOString(),
    })),
    runningRuns: d.info.runningActions.map((a) => a.workflow.workflowId),
    runs: d.info.numActionsTaken,
  };
}

interface CreateFlags extends RunFlags {
  cron?: string;
  every?: string;
  id?: string;
  overlap: string;
  paused?: boolean;
}

export function addScheduleCommands(program: Command): void {
  const schedule = program.command('schedule').description('Run agents on a timetable (Temporal Schedules)');

  const create = schedule
    .command('create')
    .description('Create a schedule that starts an agent run for <task> each time it fires')
    .argument('<task>', 'what each run should do')
    .option('--cron <expr>', 'cron expression, for example "0 9 * * 1-5"')
    .option('--every <interval>', 'fixed interval instead of cron: 30s, 5m, 2h, 1d (at least 10s)')
    .option('--id <id>', 'schedule id (default: generated)')
    .option(
      '--overlap <policy>',
      `when a run is still going at the next firing: ${OVERLAP_POLICIES.join(', ')}`,
      'skip',
    )
    .option('--paused', 'create it paused');
  addRunOptions(create, 'schedule').action(async (task: string, flags: CreateFlags) => {
    if (Boolean(flags.cron) === Boolean(flags.every))
      throw new CliError('give exactly one of --cron "EXPR" and --every INTERVAL');
    const interval = flags.every !== undefined ? parseEvery(flags.every) : undefined;
    if (interval && 'error' in interval) throw new CliError(`--every: ${interval.error}`);
    const every = interval?.every;
    const idProblem = flags.id === undefined ? undefined : scheduleIdProblem(flags.id);
    if (idProblem) throw new CliError(`--id: ${idProblem}`);
    if (!isOverlapName(flags.overlap))
      throw new CliError(`--overlap must be one of ${OVERLAP_POLICIES.join(', ')}, got '${flags.overlap}'`);
    await loadTools();
    const input = runInput(task, flags);
    checkToolsets(input.enabledToolsets, '--toolsets');
    checkToolsets(input.disabledToolsets, '--disable');
    const scheduleId = flags.id ?? `tether-schedule-${randomBytes(4).toString('hex')}`;
    await withTemporal(async (client, { taskQueue }) => {
      try {
        await client.schedule.create(
          scheduleOptions({
            scheduleId,
            cron: flags.cron,
            every,
            overlap: flags.overlap as never,
            taskQueue,
            input,
            paused: flags.paused,
          }),
        );
      } catch (err) {
        if (err instanceof ScheduleAlreadyRunning) throw err;
        // The server validates cron expressions; its message says what is wrong.
        throw new CliError(`the schedule was refused: ${(err as Error).message}`);
      }
      // The server accepts a cron that matches no date at all ("0 9 31 2 *"): ask it when it fires next.
      const handle = client.schedule.getHandle(scheduleId);
      if ((await handle.describe()).info.nextActionTimes.length === 0) {
        await handle.delete();
        throw new CliError(`--cron '${flags.cron ?? ''}' never fires (no date matches it), so no schedule was created`);
      }
    });
    process.stdout.write(`${scheduleId}\n`);
    process.stderr.write("Runs start on the task queue of 'tether worker': keep one running.\n");
  });

  schedule
    .command('list')
    .description('List schedules')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = await withTemporal(async (client) => {
        const out: { scheduleId: string; paused: boolean; note: string | null; nextRun: string | null }[] = [];
        for await (const s of client.schedule.list()) {
          out.push({
            scheduleId: s.scheduleId,
            paused: s.state.paused,
            note: s.state.note ?? null,
            nextRun: s.info.nextActionTimes[0]?.toISOString() ?? null,
          });
        }
        return out;
      });
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else
        for (const r of rows)
          process.stdout.write(
            `${r.scheduleId}  ${r.paused ? 'paused ' : 'active '}  next ${r.nextRun ?? '-'}  ${r.note ?? ''}\n`,
          );
    });

  schedule
    .command('describe')
    .description('Show a schedule: task, timetable, policy, next and recent runs')
    .argument('<id>')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const d = await withTemporal((client) => client.schedule.getHandle(id).describe().then(summary));
      if (opts.json) process.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
      else
        for (const [k, v] of Object.entries(d))
          process.stdout.write(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
    });

  const simple: [string, string, (client: Client, id: string, note?: string) => Promise<void>][] = [
    ['pause', 'Pause a schedule: no runs start until unpaused', (c, id, note) => c.schedule.getHandle(id).pause(note)],
    ['unpause', 'Unpause a schedule', (c, id, note) => c.schedule.getHandle(id).unpause(note)],
    ['trigger', 'Start a run now (the overlap policy still applies)', (c, id) => c.schedule.getHandle(id).trigger()],
    ['delete', 'Delete a schedule (runs it started go on)', (c, id) => c.schedule.getHandle(id).delete()],
  ];
  for (const [name, description, act] of simple) {
    schedule
      .command(name)
      .description(description)
      .argument('<id>')
      .option('--note <text>', 'a note kept with the schedule (pause, unpause)')
      .action(async (id: string, opts: { note?: string }) => {
        await withTemporal((client) => act(client, id, opts.note));
        process.stdout.write(`${name}: ${id}\n`);
      });
  }
}
