// Asks on this terminal about a pending approval: [o]nce / [s]ession / [a]lways / [d]eny (Enter denies), only the
// choices the approval offers, after saying what each gives; [v] shows the whole text of a long one. Reads lines
// from standard input, a terminal or a pipe. Worker-only.
import { createInterface, type Interface } from 'node:readline';
import { viewOfPending } from '../approval/approval-view.js';
import type { ApprovalChoice, PendingApproval } from '../common/approval-types.js';
import { formatApproval } from '../decisions/approval-format.js';

/** A long text is shown as its start and end until the person asks for all of it. */
const PROMPT_LINES = 40;

export interface PromptAnswer {
  choice: ApprovalChoice;
  reason?: string;
}

const CHOICES: Record<string, ApprovalChoice | 'view'> = {
  v: 'view',
  view: 'view',
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
function parseAnswer(line: string): PromptAnswer | { choice: 'view' } | null {
  const trimmed = line.trim();
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const choice = Object.hasOwn(CHOICES, word.toLowerCase()) ? CHOICES[word.toLowerCase()] : undefined;
  if (!choice) return null;
  if (choice === 'view') return { choice };
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
    const view = viewOfPending(approval);
    const shown = formatApproval(view, { maxLines: PROMPT_LINES, unfold: 'answer v' });
    const whole = formatApproval(view, { reads: 'show' });
    const long = shown !== formatApproval(view, { unfold: 'answer v' }) || view.reads.length > 0;
    this.out.write(`\n⚠ approval needed\n${shown}\n`);
    const offered = view.choices.filter((c) => c.offered).map((c) => c.choice);
    const menu = offered.map((c) => `[${c[0]}]${c.slice(1)}`).join(' / ');
    for (;;) {
      this.out.write(
        `  ${menu}${long ? ` or [v]iew all${view.reads.length > 0 ? ', with what it reads' : ` ${view.text.split('\n').length} lines`}` : ''} (Enter denies; "d REASON" gives a reason): `,
      );
      const line = await this.readLine();
      if (line === null) {
        this.out.write(`\n  (no more input: decide with tether approve|deny <workflowId> ${approval.approvalId})\n`);
        return null;
      }
      const answer = parseAnswer(line);
      if (answer?.choice === 'view') {
        this.out.write(`${whole}\n`);
        continue;
      }
      if (answer && !offered.includes(answer.choice)) {
        const why = view.choices.find((c) => c.choice === answer.choice)?.gives ?? '';
        this.out.write(`  ${answer.choice} is not offered for this approval (${why})\n`);
        continue;
      }
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
