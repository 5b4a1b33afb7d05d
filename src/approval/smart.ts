// Smart approval: the prompt for the auxiliary model and the reading of its answer (APPROVE, DENY, ESCALATE;
// anything else escalates to a person). Pure.
import type { ApprovalFinding, SmartVerdict } from '../common/approval-types.js';
import type { ChatMessage } from '../common/types.js';

const SYSTEM = [
  "You review shell commands that an AI agent wants to run on a user's machine.",
  'A static check flagged the command for the reasons given. Decide:',
  'APPROVE when the command is clearly safe in context (the flag is a false alarm or the effect is limited and intended);',
  'DENY when it would destroy data, weaken security or affect systems beyond the task;',
  'ESCALATE when you are unsure and a person should decide.',
  'Answer with exactly one word: APPROVE, DENY or ESCALATE.',
].join(' ');

export function smartPrompt(command: string, findings: ApprovalFinding[]): ChatMessage[] {
  const reasons = findings.map((f) => `- [${f.rule}] ${f.description}`).join('\n');
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: `Command:\n${command}\n\nFlagged because:\n${reasons}\n\nYour answer (APPROVE, DENY or ESCALATE):`,
    },
  ];
}

/** The first word of the reply decides; anything that is not exactly one of the three escalates. */
export function readSmartAnswer(reply: string | null, model: string): SmartVerdict {
  const text = (reply ?? '').trim();
  const word = /^[*_`"']*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  const answer = word === 'APPROVE' || word === 'DENY' || word === 'ESCALATE' ? word : 'ESCALATE';
  return { answer, reply: text.length > 200 ? `${text.slice(0, 197)}...` : text || '(empty reply)', model };
}
