// Wires terminal prompting into following a run (`tether run`, `tether attach`): who asks, and how answers are sent. Worker-only.
import type { Client } from '@temporalio/client';
import type { TemporalSettings } from '../temporal/settings.js';
import { ApprovalPrompter } from './approval-prompt.js';
import { sendDecision } from '../decisions/decide.js';
import type { FollowOptions } from '../decisions/follow.js';

/** --prompt forces asking (even from a pipe), --no-prompt never asks; by default only an interactive terminal is asked. */
export function promptOptions(
  client: Client,
  settings: TemporalSettings,
  workflowId: string,
  prompt: boolean | undefined,
): { prompter?: ApprovalPrompter; decide?: FollowOptions['decide'] } {
  if (!(prompt ?? process.stdin.isTTY === true)) return {};
  return {
    prompter: new ApprovalPrompter(),
    decide: async (decision) => {
      const out = await sendDecision(client, settings, workflowId, decision);
      if (out.status === 'rejected') return `not applied: ${out.reason}`;
      if (out.status === 'queued') return out.note;
      return decision.choice === 'deny' ? 'denied' : `approved (${decision.choice})`;
    },
  };
}
