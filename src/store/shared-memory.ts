// The memory tool against the deployment's shared memory (src/workflows/memory-book.ts): a write is an
// update-with-start whose update id is the operation id, a read a query. The first worker to use it brings the notes
// of its own store, so memory kept on one machine before carries over. Worker-only.
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { memoryView, type MemoryArgs, type MemoryNote } from '../common/memory-notes.js';
import {
  MEMORY_BOOK_WORKFLOW,
  MEMORY_NOTES_QUERY,
  MEMORY_UPDATE,
  memoryBookId,
  type MemoryBookInput,
  type MemoryOperation,
} from '../common/shared-store-names.js';

/** The book's first input: this worker's own notes, numbered on from the highest id. */
export function seedFrom(notes: MemoryNote[]): MemoryBookInput {
  return { notes, nextId: Math.max(0, ...notes.map((n) => n.id)) + 1 };
}

export async function sharedMemoryOp(
  client: Client,
  taskQueue: string,
  opId: string,
  args: MemoryArgs,
  seed: () => MemoryBookInput,
): Promise<string> {
  const workflowId = memoryBookId(taskQueue);
  if (args.action === 'read') {
    try {
      return memoryView(await client.workflow.getHandle(workflowId).query<MemoryNote[]>(MEMORY_NOTES_QUERY));
    } catch (err) {
      // Not started yet: the update below starts it, with this worker's notes, and reads it.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  const op: MemoryOperation = { ...args, at: new Date().toISOString() };
  return client.workflow.executeUpdateWithStart<Workflow, string, [string, MemoryOperation]>(MEMORY_UPDATE, {
    args: [opId, op],
    updateId: opId,
    startWorkflowOperation: new WithStartWorkflowOperation(MEMORY_BOOK_WORKFLOW, {
      workflowId,
      taskQueue,
      args: [seed()],
      workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
}
