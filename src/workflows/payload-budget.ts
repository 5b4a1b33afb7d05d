// The conversation's budget, measured as runs recorded it: in bytes since `byte-budgets`, in characters in the
// histories recorded before. Applied before every model call and before continue-as-new carries the conversation,
// so neither payload can outgrow Temporal's limit whatever the text's script. Workflow-safe.
import { patched } from '@temporalio/workflow';
import type { ChatMessage } from '../common/types.js';
import {
  CONVERSATION_BUDGET_BYTES,
  CONVERSATION_BUDGET_CHARS,
  conversationBytes,
  conversationSize,
  keepWithinBudget,
} from './conversation-budget.js';

/** Marks runs that count the conversation in bytes and fit it before continue-as-new. */
export const BYTE_BUDGETS_PATCH = 'byte-budgets';

/**
 * Shortens the conversation to its budget before a model call. The patch is asked only when the two measures could
 * disagree (the conversation is over either budget), so runs that never come near it record no marker.
 */
export function fitConversation(messages: ChatMessage[]): void {
  if (
    conversationSize(messages) <= CONVERSATION_BUDGET_CHARS &&
    conversationBytes(messages) <= CONVERSATION_BUDGET_BYTES
  )
    return;
  if (patched(BYTE_BUDGETS_PATCH)) keepWithinBudget(messages, CONVERSATION_BUDGET_BYTES, conversationBytes);
  else keepWithinBudget(messages);
}

/**
 * Before continue-as-new: the last turn's tool results were added after the last model call's budget, and 32 of them
 * could carry megabytes (of multi-byte text above all) into the next run's input. Runs recorded before carried it as
 * it was.
 */
export function fitCarriedConversation(messages: ChatMessage[]): void {
  if (conversationBytes(messages) <= CONVERSATION_BUDGET_BYTES) return;
  if (patched(BYTE_BUDGETS_PATCH)) keepWithinBudget(messages, CONVERSATION_BUDGET_BYTES, conversationBytes);
}
