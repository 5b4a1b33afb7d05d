// What the visibility listings need from Temporal, so they run on the SDK's client or on the CLI's lean reader
// (src/temporal/lean) alike: one page of a visibility query, and a run's state query. Worker-only.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { AgentState } from '../common/types.js';

type ListRequest = temporal.api.workflowservice.v1.IListWorkflowExecutionsRequest;
type ListResponse = temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse;

export interface RunReader {
  readonly namespace: string;
  listWorkflowExecutions(request: ListRequest): Promise<ListResponse>;
  /** The run's `state` query; undefined when no worker answers within `timeoutMs`. */
  queryState(workflowId: string, timeoutMs: number): Promise<AgentState | undefined>;
}

/** A reader as given, or one over the SDK's client (imported only then: the lean path never loads it). */
export async function readerOf(source: Client | RunReader): Promise<RunReader> {
  if (!('workflowService' in source)) return source;
  const { clientReader } = await import('./client-reader.js');
  return clientReader(source);
}
