// `tether checkpoints` lists a run's checkpoints of its task directory; `tether rollback` puts the directory (or one
// path) back as one of them holds it. Both read TETHER_HOME/checkpoints of this machine. Worker-only.
import type { Command } from 'commander';
import { visibleText } from '../approval/visible-text.js';
import { listCheckpoints, type ListedCheckpoint } from '../checkpoints/listing.js';
import { rollback, type RollbackReport } from '../checkpoints/rollback.js';
import { checkRun } from '../checkpoints/run-status.js';
import { CheckpointStore } from '../checkpoints/store.js';
import { resolveTarget, type Target } from '../checkpoints/catalog.js';
import { loadConfig } from '../config/config.js';
import { CliError } from './errors.js';
import { withTemporal } from './temporal-client.js';

const shown = (text: string): string => visibleText(text, { newlines: 'escape' });
const short = (id: string): string => id.slice(0, 12);

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes / 1024;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u += 1;
  }
  return `${n.toFixed(n < 10 ? 1 : 0)} ${units[u]}`;
}

function before(c: ListedCheckpoint): string {
  if (c.kind === 'rollback')
    return `rollback to ${short(c.rollbackTo ?? '?')}${c.rollbackPath ? ` (${shown(c.rollbackPath)})` : ''}`;
  return `${c.tool ?? '?'} ${shown(c.args ?? '')}`.trim();
}

function changedText(c: ListedCheckpoint): string {
  const a = c.changedAfter;
  if (!a) return '?';
  return `+${a.added} ~${a.modified} -${a.deleted}${a.until === 'now' ? ' (to now)' : ''}`;
}

export function formatCheckpoints(workflowId: string, list: ListedCheckpoint[]): string {
  if (list.length === 0) return `${workflowId}: no checkpoints on this machine\n`;
  const rows = list.map((c) => [
    short(c.id),
    new Date(c.at).toLocaleString(),
    c.kind === 'turn' ? String(c.turn) : '-',
    changedText(c),
    `${c.files} files, ${sizeText(c.bytes)}`,
    before(c).length > 70 ? `${before(c).slice(0, 69)}…` : before(c),
  ]);
  const head = ['ID', 'TAKEN', 'TURN', 'CHANGED AFTER', 'SIZE', 'BEFORE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  const dirs = [...new Set(list.map((c) => c.cwd))];
  const skipped = list.filter((c) => c.skipped).at(-1)?.skipped;
  return (
    [
      `${workflowId}: ${list.length} checkpoint${list.length === 1 ? '' : 's'} of ${dirs.map(shown).join(', ')}`,
      line(head),
      ...rows.map(line),
      ...(skipped && skipped.oversizeCount > 0
        ? [
            `left out (over checkpoints.max_file_bytes): ${skipped.oversize.map(shown).join(', ')}${skipped.oversizeCount > skipped.oversize.length ? ', …' : ''}`,
          ]
        : []),
      `roll back with: tether rollback ${workflowId} --turn N (or --to ID); --dry-run shows what would change`,
    ].join('\n') + '\n'
  );
}

const VERBS: Record<string, string> = {
  restored: 'restored',
  changed: 'changed ',
  removed: 'removed ',
  kept: 'kept    ',
};

export function formatRollback(r: RollbackReport): string {
  const what = r.target.kind === 'turn' ? `before turn ${r.target.turn}` : 'taken before a rollback';
  const lines = [
    `${r.dryRun ? 'would roll back' : 'rolled back'} ${shown(r.cwd)}${r.path ? ` (only ${shown(r.path)})` : ''} to checkpoint ${short(r.target.id)} (${what}${r.target.tool ? `, ${r.target.tool}` : ''})`,
  ];
  for (const c of r.changes)
    lines.push(`  ${VERBS[c.action] ?? c.action} ${shown(c.path)}${c.why ? `  (${c.why})` : ''}`);
  if (r.changes.length === 0) lines.push('  nothing to change: the directory is as the checkpoint holds it');
  const done = r.changes.filter((c) => c.action !== 'kept').length;
  if (!r.dryRun)
    lines.push(
      `${done} change${done === 1 ? '' : 's'}; undo with: tether rollback ${r.workflowId} --to ${short(r.undo ?? '')}`,
    );
  return `${lines.join('\n')}\n`;
}

function target(opts: { turn?: string; to?: string }): Target {
  if ((opts.turn === undefined) === (opts.to === undefined))
    throw new CliError('give one of --turn N (as tether status numbers turns) and --to ID (from tether checkpoints)');
  if (opts.to !== undefined) return { id: opts.to };
  const n = Number(opts.turn);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--turn must be a turn number from 1, got '${opts.turn}'`);
  return { turn: n };
}

export function addCheckpointCommands(program: Command): void {
  program
    .command('checkpoints')
    .description("List a run's checkpoints of its task directory: when, before which turn and call, what changed after")
    .argument('<workflowId>')
    .option('--json', 'print JSON')
    .action(async (workflowId: string, opts: { json?: boolean }) => {
      const list = await listCheckpoints(new CheckpointStore(), loadConfig().checkpoints, workflowId);
      if (opts.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      else process.stdout.write(formatCheckpoints(workflowId, list));
    });

  program
    .command('rollback')
    .description(
      "Put a run's task directory (or one path in it) back as a checkpoint holds it; a rollback can be undone",
    )
    .argument('<workflowId>')
    .option('--turn <n>', 'as it was before turn N (turns numbered as tether status shows them)')
    .option(
      '--to <id>',
      'as checkpoint ID holds it (tether checkpoints lists them; a rollback prints the one that undoes it)',
    )
    .option('--path <path>', "restore only this file or directory (relative to the run's task directory)")
    .option('--dry-run', 'print what would change, change nothing')
    .option('--force', 'roll back even though the run is still active')
    .option('--json', 'print JSON')
    .action(
      async (
        workflowId: string,
        opts: { turn?: string; to?: string; path?: string; dryRun?: boolean; force?: boolean; json?: boolean },
      ) => {
        const wanted = target(opts);
        if (opts.path !== undefined && opts.path.trim() === '') throw new CliError('--path is empty');
        const store = new CheckpointStore();
        // Said before Temporal is asked anything: no checkpoint here, an id that names none, a turn after the last.
        resolveTarget(store.list(workflowId), wanted, workflowId);
        const run = await withTemporal((client) =>
          checkRun(client, workflowId, opts.force === true || opts.dryRun === true),
        );
        if (run.refusal) throw new CliError(run.refusal, 1);
        if (run.note) process.stderr.write(`tether: ${run.note}\n`);
        const report = await rollback(store, loadConfig().checkpoints, {
          workflowId,
          target: wanted,
          ...(opts.path !== undefined ? { path: opts.path } : {}),
          dryRun: opts.dryRun === true,
          by: 'cli',
          ...(run.chain ? { chain: run.chain } : {}),
        });
        if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else process.stdout.write(formatRollback(report));
      },
    );
}
