// Turns a run's state, as the follower reads it, into ACP `session/update` payloads: the model's text, the plan
// (todo) and every tool call (tool_call, then tool_call_update with status and output; file edits as diffs). Worker-only (pure).
import { isAbsolute, resolve } from 'node:path';
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import { renderApprovalText } from '../approval/approval-text.js';
import type { AgentState, ToolCallView } from '../common/types.js';
import type { PendingApproval } from '../common/approval-types.js';
import { permissionToolCall } from './permission.js';

/** A value with every string in it rendered as approval text is (what an editor may display). */
function shownValue(v: unknown): unknown {
  if (typeof v === 'string') return renderApprovalText(v).text;
  if (Array.isArray(v)) return v.map(shownValue);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shownValue(x)]));
  return v;
}

const KINDS: Readonly<Record<string, ToolKind>> = {
  terminal: 'execute',
  process: 'execute',
  execute_code: 'execute',
  read_file: 'read',
  write_file: 'edit',
  patch: 'edit',
  search_files: 'search',
  session_search: 'search',
  web_search: 'search',
  web_extract: 'fetch',
  todo: 'think',
};

const STATUS: Readonly<Record<ToolCallView['status'], ToolCallStatus>> = {
  awaiting_approval: 'pending',
  running: 'in_progress',
  ok: 'completed',
  error: 'failed',
};

function toolKind(name: string): ToolKind {
  if (Object.hasOwn(KINDS, name)) return KINDS[name]!;
  return name.startsWith('browser_') ? 'fetch' : 'other';
}

function parseArgs(args: string | undefined): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // capped or malformed: shown as text instead
  }
}

/** What ACP shows for a file edit: write_file's new content, patch's replaced text. */
function editDiff(name: string, args: Record<string, unknown> | undefined, cwd: string): ToolCallContent | undefined {
  const path = typeof args?.path === 'string' ? args.path : undefined;
  if (!path) return undefined;
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  if (name === 'write_file' && typeof args?.content === 'string')
    return { type: 'diff', path: abs, oldText: null, newText: args.content };
  if (name === 'patch' && typeof args?.old_string === 'string' && typeof args.new_string === 'string') {
    return { type: 'diff', path: abs, oldText: args.old_string, newText: args.new_string };
  }
  return undefined;
}

function planEntries(todo: AgentState['todo']): PlanEntry[] {
  return todo.map((t) => ({
    content: t.status === 'cancelled' ? `(cancelled) ${t.content}` : t.content,
    priority: 'medium',
    status: t.status === 'cancelled' ? 'completed' : t.status,
  }));
}

/** Remembers what an editor has been told, so each read of the state sends only what is new. */
export class UpdateTracker {
  private replyTurn = 0;
  private readonly sent = new Map<number, ToolCallStatus>();
  private plan = '[]';

  constructor(private readonly cwd: string) {}

  /** Marks everything in `state` as already told (a later prompt on the same run, or a reattach). */
  baseline(state: AgentState): void {
    for (const r of state.recentReplies ?? []) this.replyTurn = Math.max(this.replyTurn, r.turn);
    for (const c of state.recentToolCalls) this.sent.set(c.index, STATUS[c.status]);
    this.plan = JSON.stringify(state.todo);
  }

  /** The updates that bring the editor from what it was told to `state`, in the order they happened. */
  updates(state: AgentState): SessionUpdate[] {
    const events: { turn: number; order: number; update: SessionUpdate }[] = [];
    for (const r of state.recentReplies ?? []) {
      if (r.turn <= this.replyTurn) continue;
      this.replyTurn = r.turn;
      events.push({
        turn: r.turn,
        order: 0,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: r.text } },
      });
    }
    const calls = new Map<number, ToolCallView>();
    for (const c of [...state.recentToolCalls, ...state.currentToolCalls]) calls.set(c.index, c);
    const pending = new Map((state.pendingApprovals ?? []).map((p) => [p.callId, p]));
    for (const c of [...calls.values()].sort((a, b) => a.index - b.index)) {
      const asking = c.status === 'awaiting_approval' ? pending.get(c.id) : undefined;
      for (const update of this.callUpdates(c, asking)) events.push({ turn: c.turn, order: c.index, update });
    }
    const plan = JSON.stringify(state.todo);
    if (plan !== this.plan) {
      this.plan = plan;
      events.push({
        turn: state.turn,
        order: Number.MAX_SAFE_INTEGER,
        update: { sessionUpdate: 'plan', entries: planEntries(state.todo) },
      });
    }
    // Stable sort: a turn's text comes before its tool calls.
    return events.sort((a, b) => a.turn - b.turn || a.order - b.order).map((e) => e.update);
  }

  private callUpdates(c: ToolCallView, asking: PendingApproval | undefined): SessionUpdate[] {
    const status = STATUS[c.status];
    const before = this.sent.get(c.index);
    if (before === status) return [];
    this.sent.set(c.index, status);
    const out: SessionUpdate[] = [];
    if (asking) {
      // A call waiting for a decision shows exactly what its permission request shows: the same title, content and
      // raw input, one rendering (src/acp/permission.ts), so the entry beside the request cannot read otherwise.
      const { toolCall } = permissionToolCall(asking);
      const same = {
        toolCallId: c.id,
        title: toolCall.title!,
        kind: toolCall.kind ?? undefined,
        status: 'pending' as const,
        content: toolCall.content ?? undefined,
        rawInput: toolCall.rawInput,
      };
      out.push(
        before === undefined ? { sessionUpdate: 'tool_call', ...same } : { sessionUpdate: 'tool_call_update', ...same },
      );
      return out;
    }
    if (before === undefined) {
      const args = parseArgs(c.args);
      const diff = editDiff(c.name, args, this.cwd);
      const path = typeof args?.path === 'string' ? args.path : undefined;
      out.push({
        sessionUpdate: 'tool_call',
        toolCallId: c.id,
        // Rendered as an approval is (no raw control, bidi or invisible character): a call asking for approval shows
        // this title and input beside the permission request.
        title: renderApprovalText(`${c.name}: ${c.summary}`, { newlines: 'escape' }).text,
        kind: toolKind(c.name),
        status: status === 'completed' || status === 'failed' ? 'in_progress' : status,
        rawInput: shownValue(args ?? c.args),
        ...(diff ? { content: [diff] } : {}),
        ...(path ? { locations: [{ path: isAbsolute(path) ? path : resolve(this.cwd, path) }] } : {}),
      });
      if (status === 'in_progress' || status === 'pending') return out;
    }
    const done = status === 'completed' || status === 'failed';
    // An update's content replaces the call's: an edit keeps its diff beside the result.
    const diff = editDiff(c.name, parseArgs(c.args), this.cwd);
    const output: ToolCallContent[] =
      c.output !== undefined ? [{ type: 'content', content: { type: 'text', text: c.output } }] : [];
    out.push({
      sessionUpdate: 'tool_call_update',
      toolCallId: c.id,
      status,
      ...(done ? { content: [...(diff ? [diff] : []), ...output], rawOutput: c.output } : {}),
    });
    return out;
  }
}
