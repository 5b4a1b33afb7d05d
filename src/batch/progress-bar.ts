// The batch progress line: done, running, waiting for approval, failed. Worker-only.
import type { BatchProgress } from './batch-runner.js';

const WIDTH = 24;
/** Without a terminal (a log, CI), at most one line this often: enough to see it move, not a line per update. */
export const PIPE_EVERY_MS = 5_000;

function renderProgress(p: BatchProgress): string {
  const filled = p.total === 0 ? WIDTH : Math.round((p.done / p.total) * WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
  return `[${bar}] ${p.done}/${p.total} done · ${p.running} running · ${p.waitingApproval} waiting for approval · ${p.failed} failed or stopped`;
}

/**
 * Redraws one line on a terminal; elsewhere prints a line when the figures changed, at most every `everyMs`, and the
 * last figures at the end.
 */
export function progressPrinter(
  out: NodeJS.WriteStream,
  everyMs = PIPE_EVERY_MS,
  now: () => number = Date.now,
): { update(p: BatchProgress): void; end(): void } {
  let last = '';
  let printed = '';
  let at = -Infinity;
  return {
    update(p) {
      const text = renderProgress(p);
      if (text === last) return;
      last = text;
      if (out.isTTY) {
        out.write(`\r\x1b[2K${text}`);
        return;
      }
      if (now() - at < everyMs) return;
      at = now();
      printed = text;
      out.write(`${text}\n`);
    },
    end() {
      if (out.isTTY && last !== '') out.write('\n');
      else if (!out.isTTY && last !== printed) {
        printed = last;
        out.write(`${last}\n`);
      }
    },
  };
}
