// Asks on this terminal about a pending approval: [o]nce / [s]ession / [a]lways / [d]eny (Enter denies).
// Reads lines from standard input, a terminal or a pipe. Worker-only.
import { createInterface, type Interface } from 'node:readline';
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';
import { formatApproval } from './approval-format.js';

export interface PromptAnswer {
  choice: ApprovalChoice;
  reason?: string;
}

const CHOICES: Record<string, ApprovalChoice> = {
  o: 'once',
  once: 'once',
  s: 'session',
  session: 'session',
  a: 'always',
  always: 'always',
  d: 'deny',
  deny: 'deny',
  '': 'deny',
};

/** Reads one answer: a choice, optionally followed by a reason ("d not on production"). Null: unknown input. */
function parseAnswer(line: string): PromptAnswer | null {
  const trimmed = line.trim();
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const choice = CHOICES[word.toLowerCase()];
  if (!choice) return null;
  const reason = rest.join(' ').trim();
  return choice === 'deny' && reason ? { choice, reason } : { choice };
}

export class ApprovalPrompter {
  private lines: AsyncIterator<string> | undefined;
  private rl: Interface | undefined;
  private ended = false;

  constructor(private readonly out: NodeJS.WritableStream = process.stderr) {}

  private async readLine(): Promise<string | null> {
    if (this.ended) return null;
    if (!this.lines) {
      this.rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
      this.lines = this.rl[Symbol.asyncIterator]();
    }
    const next = await this.lines.next();
    if (next.done) {
      this.ended = true;
      return null;
    }
    return next.value;
  }

  /** Null when standard input has ended: the approval stays pending for `tether approve` / `deny`. */
  async ask(approval: PendingApproval): Promise<PromptAnswer | null> {
    this.out.write(`\n⚠ approval needed\n${formatApproval(approval)}\n`);
    for (;;) {
      this.out.write('  [o]nce / [s]ession / [a]lways / [d]eny (Enter denies; "d REASON" gives a reason): ');
      const line = await this.readLine();
      if (line === null) {
        this.out.write(`\n  (no more input: decide with tether approve|deny <workflowId> ${approval.approvalId})\n`);
        return null;
      }
      const answer = parseAnswer(line);
      if (answer) return answer;
      this.out.write(`  not a choice: ${JSON.stringify(line.trim())}\n`);
    }
  }

  get exhausted(): boolean {
    return this.ended;
  }

  close(): void {
    this.rl?.close();
  }
}
