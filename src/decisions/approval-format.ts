// How a pending approval is printed for a person (the prompt, `tether approvals`, `tether status`, ACP), and what a
// decision did. Pure display code: no Temporal client. Worker-only.
import type { ApprovalView } from '../approval/approval-view.js';
import { thousands } from '../approval/approval-text.js';
import type { ApprovalChoice } from '../common/approval-types.js';
import type { DecideOutcome } from './decide.js';

export interface FormatOptions {
  workflowId?: string;
  /**
   * Show at most this many lines of a long text (its start and its end, the middle as one counted line); the
   * prompt then offers `v` to show all of it. Default: all of it.
   */
  maxLines?: number;
  /**
   * The files the gate read to judge the call: `fold` names them with their size and how to see them (`unfold`
   * says how), `show` prints their content under the names. Default: fold.
   */
  reads?: 'fold' | 'show';
  /** How a person sees folded files whole (the prompt: "answer v"; listings: "tether approvals --exact"). */
  unfold?: string;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The "what it reads" section: what the gate read to judge the call, apart from what runs. */
function readsSection(view: ApprovalView, opts: FormatOptions): string[] {
  if (view.reads.length === 0) return [];
  const named = view.reads.map((r) => `${r.path} (${plural(r.lines, 'line')})`);
  const show = opts.reads === 'show' && view.reads.every((r) => r.text !== undefined);
  if (!show)
    return [`  what it reads (to judge it): ${named.join(', ')}${opts.unfold ? ` — ${opts.unfold} shows them` : ''}`];
  const out = ['  what it reads (what the gate read to judge it; shown apart from what runs):'];
  for (const r of view.reads) {
    out.push(`    ${r.path} (${plural(r.lines, 'line')}):`);
    const text = r.text!.replace(/\n$/, '');
    if (text !== '') out.push(...text.split('\n').map((l) => `    │ ${l}`));
  }
  return out;
}

/** Lines of the text, or its start and end with the middle counted when there are more than `max`. */
function textLines(text: string, max: number | undefined): { lines: string[]; hidden: number } {
  const all = text.split('\n');
  if (max === undefined || all.length <= max) return { lines: all, hidden: 0 };
  const tail = Math.min(5, Math.floor(max / 4));
  const head = max - tail - 1;
  const hidden = all.length - head - tail;
  const chars = all.slice(head, all.length - tail).join('\n').length;
  return {
    lines: [
      ...all.slice(0, head),
      `⟨${thousands(hidden)} more lines, ${thousands(chars)} characters, not shown here: answer v to show all⟩`,
      ...all.slice(all.length - tail),
    ],
    hidden,
  };
}

/**
 * An approval as a person reads it: the text rendered once for every channel (control, bidi, invisible and
 * look-alike characters as escapes, long blank runs counted), continuation lines marked so they cannot pass for
 * findings, and what each choice gives, said before anyone chooses.
 */
export function formatApproval(view: ApprovalView, opts: FormatOptions = {}): string {
  const head = `${opts.workflowId ? `${opts.workflowId} ` : ''}${view.approvalId} · ${view.tool} · asked ${view.askedAt} · denied at ${view.expiresAt} unless decided`;
  const { lines } = textLines(view.text, opts.maxLines);
  const [first = '', ...more] = lines;
  const out = [head];
  // A network approval names its host first; the command below it is what was running when it connected.
  if (view.network !== undefined) out.push(`  network: ${view.network}`);
  if (view.cwd !== undefined) out.push(`  in ${view.cwd}`);
  if (view.changed?.length)
    out.push(`  (changed after it was judged or approved: ${view.changed.join(', ')}; shown below as it is now)`);
  out.push(`  $ ${first}`, ...more.map((l) => `  > ${l}`));
  if (view.hidden)
    out.push(
      '  (it holds control, bidi, invisible or look-alike characters that could make it read as something else, shown as \\x.. and \\u.... escapes)',
    );
  if (view.collapsed) out.push('  (⟨N spaces⟩ and ⟨N blank lines⟩ stand for that many, counted)');
  if (view.redacted)
    out.push(
      '  (a secret value is shown as ⟨redacted⟩ in this listing: tether approvals --exact shows the exact text)',
    );
  if (view.shortened)
    out.push(
      `  (shortened in this listing: ${thousands(view.chars)} characters in all; tether approvals --exact shows them all)`,
    );
  out.push(...view.findings.map((f) => `  [${f.rule}] ${f.description}`));
  out.push(...readsSection(view, opts));
  out.push('  choices:');
  for (const c of view.choices) out.push(`    ${c.choice.padEnd(8)}${c.offered ? '' : '(not offered) '}${c.gives}`);
  return out.join('\n');
}

/** What the CLI says a decision did: the choice that applied, and why when a wider one was narrowed. */
export function decisionLine(choice: ApprovalChoice, out: DecideOutcome): string {
  if (choice === 'deny') return 'denied';
  const applied = out.status === 'applied' && out.applies !== undefined ? out.applies : choice;
  return applied === choice
    ? `approved (${choice})`
    : `approved (${applied}: ${choice} is not offered for this approval, so it counts as ${applied})`;
}
