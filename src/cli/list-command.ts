// `tether list`: agent runs from visibility, filtered by status, batch, schedule or parent, a page at a time;
// no run is asked, so it works with every worker stopped. Worker-only.
import { Option, type Command } from 'commander';
import { visibleJson, visibleText } from '../approval/visible-text.js';
import { listRunPage, MAX_PAGE, type RunRow } from '../visibility/list-runs.js';
import { STATUS_CHOICES } from '../visibility/run-query.js';
import { CliError, positiveIntOption } from './errors.js';
import { withFastReads } from './fast-reads.js';
import { formatUsage, pricesIfConfigured } from '../observability/usage.js';

interface ListOptions {
  status?: string;
  batch?: string;
  schedule?: string;
  parent?: string;
  limit: string;
  pageToken?: string;
  json?: boolean;
}

/** How long `tether list` waits for a running run to tell its tokens (no worker: the memo's figure stays). */
const LIVE_MS = 1_500;

function textRow(r: RunRow): string {
  const extra = [
    r.model ? `model ${r.model}` : '',
    r.tokens ? formatUsage(r.tokens) : '',
    r.pendingApprovals.length ? `approvals ${r.pendingApprovals.join(',')}` : '',
    r.memo?.question ? `question ${r.memo.question.id}` : '',
    r.batch ? `batch ${r.batch}` : '',
    r.schedule ? `schedule ${r.schedule}` : '',
    r.parent ? `parent ${r.parent}` : '',
  ].filter(Boolean);
  const task = r.memo?.task ? `  ${r.memo.task.slice(0, 60)}` : '';
  return visibleText(`${r.workflowId}  ${r.status.padEnd(17)}  ${r.startTime}  ${extra.join(' · ')}${task}`, {
    newlines: 'escape',
  });
}

/** A page token the server cannot read is the user's input, not a crash (SQL visibility answers UNKNOWN). */
function badToken(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 3 || code === 2;
}

export function addListCommand(program: Command): void {
  program
    .command('list')
    .description('List agent runs, newest start first, from visibility (works with no worker running)')
    .addOption(
      new Option('--status <status>', 'only runs with this status (open: every run not ended)').choices(STATUS_CHOICES),
    )
    .option('--batch <id>', 'only runs of this batch (the id tether batch prints)')
    .option('--schedule <id>', 'only runs started by this schedule')
    .option('--parent <workflowId>', 'only sub-agents of this run')
    .option('--limit <n>', `most runs to show (a page; at most ${MAX_PAGE})`, '20')
    .option('--page-token <token>', 'the next page, as the previous page said')
    .option('--json', 'print JSON (an array; the next page token goes to standard error)')
    .action(async (opts: ListOptions) => {
      const limit = positiveIntOption(opts.limit, '--limit');
      if (limit > MAX_PAGE) throw new CliError(`--limit must be at most ${MAX_PAGE} (use --page-token for more)`);
      // Read once: a broken config.yaml warns once, whichever reader answers.
      const prices = await pricesIfConfigured();
      const page = await withFastReads(
        (reader) => listRunPage(reader, { ...opts, pageSize: limit, prices, liveTokensMs: LIVE_MS }),
        async (client) => {
          try {
            return await listRunPage(client, { ...opts, pageSize: limit, prices, liveTokensMs: LIVE_MS });
          } catch (err) {
            if (opts.pageToken && badToken(err))
              throw new CliError('--page-token is not a page token of this listing (copy it from the last page)');
            throw err;
          }
        },
      );
      if (opts.json) process.stdout.write(`${visibleJson(page.runs, 2)}\n`);
      else if (page.runs.length === 0) process.stdout.write('no runs\n');
      else process.stdout.write(`${page.runs.map(textRow).join('\n')}\n`);
      if (page.nextPageToken) process.stderr.write(`more: add --page-token ${page.nextPageToken}\n`);
    });
}
