// `tether batch list` (the batches visibility knows, with their runs counted by status) and `tether batch cancel <id>`
// (every running run of one batch cancelled, its commands stopped). Worker-only.
import type { Command } from 'commander';
import { visibleText } from '../approval/visible-text.js';
import { listAllRuns, type RunRow } from '../visibility/list-runs.js';
import { quoted } from '../visibility/run-query.js';
import { CliError } from './errors.js';
import { withTemporal } from './temporal-client.js';

interface BatchRow {
  batchId: string;
  runs: number;
  /** Runs by status (running, waiting-approval, completed, failed, ...). */
  statuses: Record<string, number>;
  firstStart: string;
  lastStart: string;
}

/** Batches from their runs, newest first. */
export function batchesOf(rows: RunRow[]): BatchRow[] {
  const byId = new Map<string, BatchRow>();
  for (const r of rows) {
    if (!r.batch) continue;
    const b = byId.get(r.batch) ?? {
      batchId: r.batch,
      runs: 0,
      statuses: {},
      firstStart: r.startTime,
      lastStart: r.startTime,
    };
    b.runs += 1;
    b.statuses[r.status] = (b.statuses[r.status] ?? 0) + 1;
    if (r.startTime < b.firstStart) b.firstStart = r.startTime;
    if (r.startTime > b.lastStart) b.lastStart = r.startTime;
    byId.set(r.batch, b);
  }
  return [...byId.values()].sort((a, b) => b.lastStart.localeCompare(a.lastStart));
}

const AGENT_RUNS = "WorkflowType = 'agentWorkflow' AND ExecutionStatus != 'ContinuedAsNew'";

export function batchList(batch: Command): void {
  batch
    .command('list')
    .description('List batches, newest first: their runs counted by status (from visibility; no worker needed)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = await withTemporal((client) =>
        listAllRuns(client, { query: `${AGENT_RUNS} AND TetherBatch IS NOT NULL` }),
      );
      const batches = batchesOf(rows);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(batches, null, 2)}\n`);
        return;
      }
      if (batches.length === 0) {
        process.stdout.write('no batches\n');
        return;
      }
      for (const b of batches) {
        const counts = Object.entries(b.statuses)
          .sort(([, x], [, y]) => y - x)
          .map(([s, n]) => `${n} ${s}`)
          .join(', ');
        process.stdout.write(
          visibleText(
            `${b.batchId}  ${b.runs} run${b.runs === 1 ? '' : 's'}: ${counts} · last started ${b.lastStart}`,
          ) + `  (its runs: tether list --batch ${b.batchId})\n`,
        );
      }
    });
}

export function batchCancel(batch: Command): void {
  batch
    .command('cancel')
    .description(
      'Cancel every running run of a batch (their commands are stopped); a `tether batch` still going starts no more',
    )
    .argument('<batchId>', 'the id tether batch printed (tether batch list shows them)')
    .action(async (batchId: string) => {
      if (!/^[0-9a-f]{10}$/.test(batchId))
        throw new CliError(`'${batchId}' is not a batch id (ten hex digits, as tether batch list shows them)`);
      const { cancelled, ended } = await withTemporal(async (client) => {
        const rows = await listAllRuns(client, { query: `${AGENT_RUNS} AND TetherBatch = ${quoted(batchId)}` });
        if (rows.length === 0)
          throw new CliError(`no runs of batch ${batchId} (tether batch list shows the batches)`, 1);
        const running = rows.filter((r) => r.temporalStatus === 'RUNNING');
        await Promise.all(running.map((r) => client.workflow.getHandle(r.workflowId).cancel()));
        return { cancelled: running.map((r) => r.workflowId), ended: rows.length - running.length };
      });
      process.stdout.write(
        `batch ${batchId}: ${cancelled.length} running run${cancelled.length === 1 ? '' : 's'} cancelled` +
          `${ended > 0 ? `, ${ended} had already ended` : ''}; a \`tether batch\` of it that is still going starts no more tasks` +
          `${cancelled.length > 0 ? ` (their commands are stopped: tether status <workflowId> shows each)` : ''}\n`,
      );
      for (const id of cancelled) process.stdout.write(`  cancelled ${id}\n`);
    });
}
