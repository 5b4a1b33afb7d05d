// A long scripted run for tests and the benchmark: every turn calls `todo` with the next turn number, which the
// model reads back from the last tool result (so the script survives compaction), until turn `turns` answers.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { ChatRequest, ScriptedReply, Step } from './scripted-model.js';

export function longRunScript(turns: number): { steps: Step[]; summariser: Step } {
  const step = (req: ChatRequest): ScriptedReply => {
    const last = req.messages.filter((m) => m.role === 'tool').at(-1);
    const n = last ? Number((JSON.parse(last.content!) as { todos: { content: string }[] }).todos[0]!.content) + 1 : 1;
    if (n >= turns) return { content: `done after ${n} turns` };
    return {
      toolCalls: [{ name: 'todo', arguments: { todos: [{ id: 'turn', content: String(n), status: 'in_progress' }] } }],
    };
  };
  return {
    steps: Array.from({ length: turns + 1 }, () => step),
    summariser: { content: 'Earlier turns only advanced the turn counter.' },
  };
}

/** Every turn runs `echo N` in the terminal, N read back from the last command's output, until turn `turns` answers. */
export function echoScript(turns: number): Step[] {
  const step = (req: ChatRequest): ScriptedReply => {
    const last = req.messages.filter((m) => m.role === 'tool').at(-1);
    const n = last ? Number((JSON.parse(last.content!) as { output: string }).output.trim()) + 1 : 1;
    if (n >= turns) return { content: `done after ${n} turns` };
    return { toolCalls: [{ name: 'terminal', arguments: { command: `echo ${n}` } }] };
  };
  return Array.from({ length: turns + 1 }, () => step);
}

export interface RunHistory {
  runId: string;
  events: number;
  bytes: number;
}

/** Every run (continue-as-new chain) of a workflow id, with its history's event count and encoded size. */
export async function runHistories(client: Client, workflowId: string): Promise<RunHistory[]> {
  const out: RunHistory[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(workflowId, w.runId).fetchHistory();
    out.push({
      runId: w.runId,
      events: history.events?.length ?? 0,
      bytes: proto.temporal.api.history.v1.History.encode(history).finish().length,
    });
  }
  return out;
}
