// On a conversation cache miss, the model activity asks its workflow (a query, which writes nothing to history) for
// the request it is making, and checks it against the call's digests. Worker-only.
import type { ConversationRef } from '../common/activity-contract.js';
import { digestConversation, digestMessage, digestText } from '../common/conversation-digest.js';
import type { ToolDefinition } from '../common/tool-definition.js';
import type { ChatMessage } from '../common/types.js';
import { MODEL_REQUEST_QUERY } from '../common/workflow-messages.js';
import { queryOwnWorkflow } from './workflow-query.js';

interface Request {
  messages: ChatMessage[];
  tools: ToolDefinition[];
}

/** Set TETHER_CONVERSATION_REBUILD=0 to skip the query, so a miss goes straight back to the workflow. */
export const rebuildEnabled = (env = process.env): boolean => env.TETHER_CONVERSATION_REBUILD !== '0';

/** The whole request from the workflow, or undefined when it cannot be had or does not match `ref`. */
export async function requestFromWorkflow(ref: ConversationRef): Promise<Request | undefined> {
  // No answer (no worker, an old workflow without the query): the workflow sends it instead.
  const request = await queryOwnWorkflow<Request>(MODEL_REQUEST_QUERY);
  if (!request) return undefined;
  const matches =
    digestConversation(request.messages.map(digestMessage)) === ref.digest &&
    digestText(JSON.stringify(request.tools)) === ref.tools;
  return matches ? request : undefined;
}
