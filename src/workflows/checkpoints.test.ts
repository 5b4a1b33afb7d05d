import { describe, expect, it } from 'vitest';
import type { ToolMeta } from '../common/types.js';
import { mayChangeFiles } from './checkpoints.js';

const meta = (m: Partial<ToolMeta>): ToolMeta => ({
  emoji: '',
  parallelSafe: false,
  sideEffects: 'changes-world',
  timeoutSeconds: 1,
  ...m,
});

describe('which calls are checkpointed before', () => {
  it.each([
    ['terminal (changes the world)', meta({ sideEffects: 'changes-world', environment: true }), true],
    ['write_file (idempotent, still a write)', meta({ sideEffects: 'idempotent' }), true],
    ['an MCP tool (changes the world unless it says otherwise)', meta({}), true],
    ['read_file (read-only)', meta({ sideEffects: 'read-only' }), false],
    ['todo (handled by the workflow)', meta({ sideEffects: 'idempotent', agentLoop: true }), false],
    ['an unknown tool (runs nothing)', undefined, false],
  ])('%s: %s', (_name, m, expected) => {
    expect(mayChangeFiles(m)).toBe(expected);
  });
});
