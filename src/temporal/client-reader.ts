// The visibility listings' reader over the SDK's client (the lean reader's counterpart). Worker-only.
import type { Client } from '@temporalio/client';
import type { RunReader } from './run-reader.js';
import { queryRunState } from './run-handle.js';

export function clientReader(client: Client): RunReader {
  return {
    namespace: client.options.namespace,
    listWorkflowExecutions: (request) => client.workflowService.listWorkflowExecutions(request),
    queryState: (workflowId, timeoutMs) => queryRunState(client, client.workflow.getHandle(workflowId), timeoutMs),
  };
}
