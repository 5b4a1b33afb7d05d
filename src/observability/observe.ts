// What the model and tool activities call around a model call and a tool call: a span when tracing is on (the
// implementation is set by tracing.ts, loaded only then), metrics when the metrics endpoint is on, and with both off
// just the call itself. Imports no OpenTelemetry module. Worker-only.
import type { CallModelInput } from '../common/activity-contract.js';
import type { ModelReply } from '../common/types.js';
import { recordModelCall, recordToolCall, type ToolOutcome } from './metrics.js';

export interface ToolCallFacts {
  name: string;
  callId: string;
  /** The arguments as the model gave them (JSON text); exported only when message content capture is on. */
  args: string;
}

export interface ToolCallEnd {
  status: string;
  result: string;
}

/** The spans, from src/observability/genai-spans.ts. */
export interface Tracing {
  chat(input: CallModelInput, run: () => Promise<ModelReply>): Promise<ModelReply>;
  tool<T extends ToolCallEnd>(call: ToolCallFacts, run: () => Promise<T>): Promise<T>;
}

let tracing: Tracing | undefined;

export function setTracing(t: Tracing | undefined): void {
  tracing = t;
}

/** An error result: the JSON object tether's tools and dispatch return for a failure starts with its `error` key. */
const ERROR_RESULT = /^\s*\{\s*"error"\s*:/;

/** The outcome label of a finished call. */
export function toolOutcome(end: ToolCallEnd): ToolOutcome {
  if (end.status !== 'ok') return end.status;
  return ERROR_RESULT.test(end.result) ? 'error' : 'ok';
}

const seconds = (since: number): number => (performance.now() - since) / 1000;

export async function observeChat(input: CallModelInput, run: () => Promise<ModelReply>): Promise<ModelReply> {
  const started = performance.now();
  try {
    const reply = await (tracing ? tracing.chat(input, run) : run());
    recordModelCall(input.model, 'ok', seconds(started), reply.usage);
    return reply;
  } catch (err) {
    recordModelCall(input.model, 'error', seconds(started));
    throw err;
  }
}

export async function observeTool<T extends ToolCallEnd>(call: ToolCallFacts, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const end = await (tracing ? tracing.tool(call, run) : run());
    recordToolCall(call.name, toolOutcome(end), seconds(started));
    return end;
  } catch (err) {
    recordToolCall(call.name, (err as Error)?.name === 'CancelledFailure' ? 'cancelled' : 'failed', seconds(started));
    throw err;
  }
}
