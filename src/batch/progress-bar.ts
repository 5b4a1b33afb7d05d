// The batch progress line: done, running, waiting for approval, failed. Worker-only.
import type { BatchProgress } from './batch-runner.js';

const WIDTH = 24;

function renderProgress(p: BatchProgress): string {
  const filled = p.total === 0 ? WIDTH : Math.round((p.done / p.total) * WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
  return `[${bar}] ${p.done}/${p.total} done · ${p.running} running · ${p.waitingApproval} waiting for approval · ${p.failed} failed or stopped`;
}

/** Redraws one line on a terminal; elsewhere prints a line only when the figures change. */
export function progressPrinter(out: NodeJS.WriteStream): { update(p: BatchProgress): void; end(): void } {
  let last = '';
  return {
    update(p) {
      const text = renderProgress(p);
      if (text === last) return;
      last = text;
      out.write(out.isTTY ? `\r\x1b[2K${text}` : `${text}\n`);
    },
    end() {
      if (out.isTTY && last !== '') out.write('\n');
    },
  };
}
