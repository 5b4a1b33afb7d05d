// The conversation a run starts from: system prompt plus the task or the given messages. Pure and workflow-safe.
import { ApplicationFailure } from '@temporalio/common';
import type { AgentInput, ChatMessage } from '../common/types.js';

function defaultSystemPrompt(cwd: string): string {
  return [
    'You are tether, an autonomous agent that completes tasks by calling tools.',
    `Your working directory is ${cwd}. Relative paths given to tools resolve against it.`,
    'Tool results are JSON; an "error" field means the call failed and says why. Fix the cause and go on.',
    'When the task is done, answer with a short summary and no tool calls.',
  ].join('\n');
}

export function initialMessages(input: AgentInput): ChatMessage[] {
  const system: ChatMessage = { role: 'system', content: input.systemPrompt ?? defaultSystemPrompt(input.cwd) };
  if (input.messages && input.messages.length > 0) {
    return input.messages[0]?.role === 'system' ? [...input.messages] : [system, ...input.messages];
  }
  if (!input.task || input.task.trim() === '') {
    // Bad input fails the run with a reason, not the workflow task again and again (that is for bugs in this code).
    throw ApplicationFailure.nonRetryable('agentWorkflow needs a task or messages', 'Agent.BadInput');
  }
  return [system, { role: 'user', content: input.task }];
}
