import { describe, expect, it } from 'vitest';
import type { AgentState, ToolCallView } from '../common/types.js';
import { UpdateTracker } from './updates.js';

const call = (index: number, status: ToolCallView['status'], extra: Partial<ToolCallView> = {}): ToolCallView => ({
  index,
  turn: index,
  id: `c${index}`,
  name: 'terminal',
  emoji: '💻',
  summary: 'ls',
  status,
  args: '{"command":"ls"}',
  ...extra,
});

const state = (over: Partial<AgentState>): AgentState =>
  ({
    status: 'running',
    turn: 1,
    currentToolCalls: [],
    recentToolCalls: [],
    todo: [],
    recentReplies: [],
    ...over,
  }) as AgentState;

describe('UpdateTracker', () => {
  it("sends each thing once: text before its turn's calls, a call opened then closed, a plan on change", () => {
    const t = new UpdateTracker('/w');
    const first = t.updates(state({ recentReplies: [{ turn: 1, text: 'hi' }], recentToolCalls: [call(1, 'running')] }));
    expect(first.map((u) => u.sessionUpdate)).toEqual(['agent_message_chunk', 'tool_call']);
    expect(first[1]).toMatchObject({
      toolCallId: 'c1',
      kind: 'execute',
      status: 'in_progress',
      rawInput: { command: 'ls' },
    });
    const second = t.updates(
      state({
        recentReplies: [{ turn: 1, text: 'hi' }],
        recentToolCalls: [call(1, 'ok', { output: 'a\nb' })],
        todo: [{ id: 'x', content: 'do', status: 'cancelled' }],
      }),
    );
    expect(second).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'a\nb' } }],
        rawOutput: 'a\nb',
      },
      { sessionUpdate: 'plan', entries: [{ content: '(cancelled) do', priority: 'medium', status: 'completed' }] },
    ]);
    expect(
      t.updates(
        state({
          recentToolCalls: [call(1, 'ok', { output: 'a\nb' })],
          todo: [{ id: 'x', content: 'do', status: 'cancelled' }],
        }),
      ),
    ).toEqual([]);
  });

  it('a call first seen finished still opens with tool_call; file edits carry a diff at an absolute path', () => {
    const t = new UpdateTracker('/w');
    const u = t.updates(
      state({
        recentToolCalls: [
          call(1, 'error', {
            name: 'patch',
            args: '{"path":"a.ts","old_string":"x","new_string":"y"}',
            output: '{"error":"no"}',
          }),
        ],
      }),
    );
    expect(u.map((x) => [x.sessionUpdate, 'status' in x ? x.status : undefined])).toEqual([
      ['tool_call', 'in_progress'],
      ['tool_call_update', 'failed'],
    ]);
    expect(u[0]).toMatchObject({
      kind: 'edit',
      content: [{ type: 'diff', path: '/w/a.ts', oldText: 'x', newText: 'y' }],
      locations: [{ path: '/w/a.ts' }],
    });
    expect(u[1]).toMatchObject({ content: [{ type: 'diff', path: '/w/a.ts' }, { type: 'content' }] });
  });

  it('after a baseline only what is new is sent (a later prompt, a reattach)', () => {
    const t = new UpdateTracker('/w');
    const before = state({
      recentReplies: [{ turn: 1, text: 'old' }],
      recentToolCalls: [call(1, 'ok')],
      todo: [{ id: 'a', content: 'p', status: 'pending' }],
    });
    t.baseline(before);
    expect(t.updates(before)).toEqual([]);
    expect(
      t.updates({
        ...before,
        recentReplies: [
          { turn: 1, text: 'old' },
          { turn: 2, text: 'new' },
        ],
      }),
    ).toEqual([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'new' } }]);
  });
});
