// How a run's task text reaches its tool calls: by digest in each input (patched), and whole by a query that a
// worker asks only when a hook or tool will read it. Workflow-safe.
import { defineQuery, patched, setHandler } from '@temporalio/workflow';
import type { RunToolInput } from '../common/activity-contract.js';
import { digestText } from '../common/conversation-digest.js';
import { TASK_TEXT_QUERY } from '../common/workflow-messages.js';

/** Added when tool inputs stopped carrying the task text; histories recorded before it replay sending it whole. */
const TASK_BY_REFERENCE_PATCH = 'tool-input-task-by-reference';
const taskTextQuery = defineQuery<string | null>(TASK_TEXT_QUERY);

/** Answers the worker's query for the task text (a query records nothing in history). */
export function answerTaskText(task: string | undefined): void {
  setHandler(taskTextQuery, () => task ?? null);
}

/**
 * What each tool call's input says of the task: its digest (the worker looks the text up only when something reads
 * it), or, in histories recorded before, the whole text. The digest is computed once per run.
 */
export function taskForTools(task: string | undefined): () => Pick<RunToolInput, 'userTask' | 'userTaskRef'> {
  let ref: string | undefined;
  return () => {
    if (task === undefined) return {};
    if (!patched(TASK_BY_REFERENCE_PATCH)) return { userTask: task };
    ref ??= digestText(task);
    return { userTaskRef: ref };
  };
}
