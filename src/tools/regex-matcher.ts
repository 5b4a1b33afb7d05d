// Helper for search tools (registers nothing): runs a model-given regular expression off the main thread,
// so a catastrophically slow pattern is stopped by a time limit instead of freezing the worker. Worker-only.
import { Worker } from 'node:worker_threads';
import { TetherError } from '../common/errors.js';

const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const re = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', ({ id, text, max, lineChars }) => {
  const out = [];
  const lines = text.split('\\n');
  try {
    for (let i = 0; i < lines.length && out.length < max; i += 1) {
      if (re.test(lines[i])) out.push([i + 1, lines[i].slice(0, lineChars)]);
    }
  } catch (err) {
    // A pattern that overflows the stack on a long line (RangeError) is the model's to fix, not a crash.
    parentPort.postMessage({ id, error: String(err && err.message || err) });
    return;
  }
  parentPort.postMessage({ id, out });
});
`;

export class RegexMatcher {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly waiting = new Map<number, (r: { out?: [number, string][]; error?: string }) => void>();

  /** Throws a SyntaxError for an invalid pattern, before any thread starts. */
  constructor(
    pattern: string,
    private readonly timeoutMs: number,
  ) {
    const re = new RegExp(pattern);
    this.worker = new Worker(THREAD, { eval: true, workerData: { source: re.source, flags: re.flags } });
    this.worker.on('message', ({ id, out, error }: { id: number; out?: [number, string][]; error?: string }) => {
      this.waiting.get(id)?.({ out, error });
      this.waiting.delete(id);
    });
    // Whatever else goes wrong in the thread fails the waiting searches; unhandled, it would end the worker process.
    this.worker.on('error', (err) => {
      for (const done of this.waiting.values()) done({ error: err.message });
      this.waiting.clear();
    });
    this.worker.unref();
  }

  /** Matching lines of `text` as [line number, text]; rejects when the pattern runs past the time limit. */
  match(text: string, max: number, lineChars: number): Promise<[number, string][]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        void this.worker.terminate();
        reject(
          new TetherError(
            'Tool.RegexTimeout',
            `the regular expression took longer than ${this.timeoutMs} ms on one file and was stopped; simplify it`,
          ),
        );
      }, this.timeoutMs);
      this.waiting.set(id, ({ out, error }) => {
        clearTimeout(timer);
        if (error === undefined) resolve(out ?? []);
        else
          reject(
            new TetherError('Tool.RegexTimeout', `the regular expression failed on one file (${error}); simplify it`),
          );
      });
      this.worker.postMessage({ id, text, max, lineChars });
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
