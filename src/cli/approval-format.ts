// How a pending approval is printed for a person (the prompt, `tether approvals`, `tether status`). Worker-only.
import { hasHiddenCharacters, visibleText } from '../approval/visible-text.js';
import type { PendingApproval } from '../common/approval-types.js';
import type { MemoApproval } from '../common/search-attributes.js';

/**
 * An approval as a person reads it: the command exactly, with control, bidi and invisible characters shown as escapes
 * (they could otherwise repaint the line), continuation lines marked so they cannot pass for findings.
 */
export function formatApproval(a: PendingApproval & Partial<MemoApproval>, workflowId?: string): string {
  const head = `${workflowId ? `${workflowId} ` : ''}${a.approvalId} · ${a.tool} · asked ${a.askedAt} · denied at ${a.expiresAt} unless decided`;
  const [first = '', ...more] = visibleText(a.command).split('\n');
  const command = [`  $ ${first}`, ...more.map((l) => `  > ${l}`)];
  if (a.hidden || hasHiddenCharacters(a.command))
    command.push('  (the command holds control or invisible characters, shown above as \\x.. and \\u.... escapes)');
  if (a.redacted) command.push('  (what looked like a secret is shown as [REDACTED ...] in this listing)');
  if (a.shortened) command.push('  (shortened in this listing: tether status shows the whole command)');
  return [
    head,
    ...command,
    ...a.findings.map((f) => `  [${f.rule}] ${visibleText(f.description, { newlines: 'escape' })}`),
  ].join('\n');
}
