// The CLI's lean reader: visibility pages, a run's description, its state query and a completed run's result, over
// one HTTP/2 connection with a few message types (milliseconds to load, where the SDK's client takes hundreds).
// Reads only: whatever it cannot answer plainly (another payload encoding, a failed run) it leaves to the client.
// Worker-only.
import type { temporal } from '@temporalio/proto';
import { ATTRIBUTES } from '../../common/search-attribute-names.js';
import type { AgentState } from '../../common/types.js';
import { STATE_QUERY } from '../../common/workflow-messages.js';
import type { RunReader } from '../run-reader.js';
import { EXECUTION_STATUS, jsonPayload, timestamp, type RawPayload } from '../../payloads/json-payload.js';
import type { TemporalSettings } from '../settings.js';
import { GrpcSession } from './grpc-unary.js';
import { leanType } from '../../payloads/lean-proto.js';

/** Every call's deadline unless it names its own: a read that takes longer is better left to the full client. */
const CALL_MS = 10_000;

/** HistoryEventFilterType.CLOSE_EVENT, QueryRejectCondition.NONE (Temporal API enums). */
const CLOSE_EVENT = 2;

export interface RunDescription {
  workflowId: string;
  runId: string;
  /** As the SDK names it: RUNNING, COMPLETED, ... */
  status: string;
  startTime: Date;
  closeTime?: Date;
  /** The run's TetherModel search attribute, when set. */
  model?: string;
  /** Its pending activities (id, attempt, last failure, next try), as the server describes them. */
  pendingActivities?: temporal.api.workflow.v1.IPendingActivityInfo[];
}

export class LeanReader implements RunReader {
  private constructor(
    private readonly grpc: GrpcSession,
    readonly namespace: string,
  ) {}

  static open(settings: TemporalSettings): LeanReader {
    return new LeanReader(GrpcSession.open(settings), settings.namespace);
  }

  /** `method` of WorkflowService; its answer as a plain object of the response's interface. */
  private call<T>(method: string, request: object, timeoutMs = CALL_MS): Promise<T> {
    const pkg = 'temporal.api.workflowservice.v1.';
    const types = { req: leanType(`${pkg}${method}Request`), res: leanType(`${pkg}${method}Response`) };
    return this.grpc.call<T>(method, request, types, timeoutMs);
  }

  listWorkflowExecutions(
    request: temporal.api.workflowservice.v1.IListWorkflowExecutionsRequest,
  ): Promise<temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse> {
    return this.call('ListWorkflowExecutions', request);
  }

  async describe(workflowId: string): Promise<RunDescription> {
    const res = await this.call<temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse>(
      'DescribeWorkflowExecution',
      {
        namespace: this.namespace,
        execution: { workflowId },
      },
    );
    const info = res.workflowExecutionInfo;
    const model = jsonPayload(info?.searchAttributes?.indexedFields?.[ATTRIBUTES.model.name] as RawPayload | undefined);
    return {
      workflowId,
      runId: info?.execution?.runId ?? '',
      status: EXECUTION_STATUS[info?.status ?? 0] ?? 'UNSPECIFIED',
      startTime: timestamp(info?.startTime) ?? new Date(0),
      closeTime: timestamp(info?.closeTime),
      ...(model.ok && typeof model.value === 'string' ? { model: model.value } : {}),
      ...(res.pendingActivities?.length ? { pendingActivities: res.pendingActivities } : {}),
    };
  }

  async queryState(workflowId: string, timeoutMs: number): Promise<AgentState | undefined> {
    try {
      const res = await this.call<temporal.api.workflowservice.v1.IQueryWorkflowResponse>(
        'QueryWorkflow',
        { namespace: this.namespace, execution: { workflowId }, query: { queryType: STATE_QUERY } },
        timeoutMs,
      );
      if (res.queryRejected) return undefined;
      const decoded = jsonPayload(res.queryResult?.payloads?.[0] as RawPayload | undefined);
      return decoded.ok ? (decoded.value as AgentState) : undefined;
    } catch {
      // As the client's queryRunState: no answer in time, or none at all (no worker, the run just closed).
      return undefined;
    }
  }

  /**
   * What a completed run returned, when its close event says so plainly (JSON, no next run); undefined for anything
   * else (failed, continued, another encoding), which the SDK's client explains.
   */
  async completedResult(workflowId: string, runId: string): Promise<{ value: unknown } | undefined> {
    const res = await this.call<temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse>(
      'GetWorkflowExecutionHistory',
      {
        namespace: this.namespace,
        execution: { workflowId, runId },
        historyEventFilterType: CLOSE_EVENT,
      },
    );
    const completed = res.history?.events?.at(-1)?.workflowExecutionCompletedEventAttributes;
    if (!completed || completed.newExecutionRunId) return undefined;
    const decoded = jsonPayload(completed.result?.payloads?.[0] as RawPayload | undefined);
    return decoded.ok ? { value: decoded.value } : undefined;
  }

  close(): void {
    this.grpc.close();
  }
}
