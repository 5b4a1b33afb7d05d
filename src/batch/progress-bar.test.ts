// Without a terminal, batch progress is a line every few seconds at most (and the last figures at the end).
import { describe, expect, it } from 'vitest';
import { progressPrinter } from './progress-bar.js';

const sink = (): { stream: NodeJS.WriteStream; lines: string[] } => {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
  return { stream, lines };
};

describe('progressPrinter without a terminal', () => {
  it('prints at most one line per interval, and the final figures once at the end', () => {
    const { stream, lines } = sink();
    let t = 0;
    const bar = progressPrinter(stream, 5_000, () => t);
    for (let done = 0; done <= 10; done += 1) {
      bar.update({ total: 10, done, running: 10 - done, waitingApproval: 0, failed: 0 });
      t += 1_000;
    }
    bar.end();
    expect(lines.length).toBe(3); // at 0 s, 5 s and 10 s; the end adds nothing already said
    expect(lines.at(-1)).toContain('10/10 done');
  });

  it('says the last figures at the end when they were held back', () => {
    const { stream, lines } = sink();
    let t = 0;
    const bar = progressPrinter(stream, 5_000, () => t);
    bar.update({ total: 2, done: 0, running: 2, waitingApproval: 0, failed: 0 });
    t = 1_000;
    bar.update({ total: 2, done: 2, running: 0, waitingApproval: 0, failed: 0 });
    expect(lines.length).toBe(1);
    bar.end();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('2/2 done');
  });
});
