// Runs one turn's tool calls as activities: ordered segments, bounded concurrency, results in the model's order; each
// call's own path is in tool-call.ts. Workflow-safe.
import { patched } from '@temporalio/workflow';
import { chunk, planSegments, type PlannedCall } from './batching.js';
import { capText, summariseArgs } from './summary.js';
import { CANCEL_WAITS_PATCH, runOne, type BatchContext } from './tool-call.js';
import type { ChatMessage, ModelToolCall, ToolCallView } from '../common/types.js';

const RECENT = 20;

/** Like Promise.all, but a cancellation does not end the batch while its other calls are still stopping. */
async function allSettledOrThrow(runs: Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

function isError(result: string): boolean {
  return result.startsWith('{"error"');
}

/** Runs the calls and returns one `tool` message per call, in the order the model gave them. */
export async function runToolBatch(calls: ModelToolCall[], turn: number, ctx: BatchContext): Promise<ChatMessage[]> {
  const { state } = ctx;
  const results: string[] = new Array<string>(calls.length);
  // Tool names come from the model: an own-property lookup, so '__proto__' finds nothing.
  const metas = calls.map((c) => (Object.hasOwn(ctx.meta, c.function.name) ? ctx.meta[c.function.name] : undefined));
  // Calls past the per-turn limit are refused, not run: they are not counted as tool calls of the run.
  const ran = Math.min(calls.length, ctx.maxCallsPerTurn);
  const views: ToolCallView[] = calls.map((c, i) => {
    const meta = metas[i];
    return {
      index: state.toolCallCount + Math.min(i, ran - 1) + 1,
      turn,
      id: c.id,
      name: c.function.name,
      emoji: meta?.emoji ?? '❔',
      summary: summariseArgs(c.function.arguments),
      status: 'running',
      args: capText(c.function.arguments),
    };
  });
  state.toolCallCount += ran;
  state.currentToolCalls = views;
  state.recentToolCalls = [...state.recentToolCalls, ...views].slice(-RECENT);

  const planned: PlannedCall[] = [];
  calls.forEach((c, i) => {
    if (i >= ctx.maxCallsPerTurn) {
      results[i] = JSON.stringify({
        error: `Not run: more than ${ctx.maxCallsPerTurn} tool calls in one turn. Ask for fewer at a time.`,
      });
      views[i]!.status = 'error';
      views[i]!.summary = `not run (over ${ctx.maxCallsPerTurn} calls in one turn)`;
      return;
    }
    planned.push({ position: i, name: c.function.name, args: c.function.arguments, meta: metas[i] });
  });

  for (const segment of planSegments(planned, ctx.cwd)) {
    for (const slice of chunk(segment, ctx.maxParallel)) {
      const runs = slice.map(async (call) => {
        const result = await runOne(call, views[call.position]!, ctx);
        results[call.position] = result;
        views[call.position]!.status = isError(result) ? 'error' : 'ok';
        views[call.position]!.output = capText(result);
      });
      await (patched(CANCEL_WAITS_PATCH) ? allSettledOrThrow(runs) : Promise.all(runs));
    }
  }
  state.lastToolCalls = views;
  state.currentToolCalls = [];
  return calls.map((c, i) => ({ role: 'tool', tool_call_id: c.id, content: results[i]! }));
}
