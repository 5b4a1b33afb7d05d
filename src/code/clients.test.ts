import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { toolLines, type CallableTool } from './callable-tools.js';
import { javascriptClient } from './client-javascript.js';
import { pythonClient } from './client-python.js';

const TOOLS: CallableTool[] = [
  {
    name: 'read_file',
    purpose: 'Read a text file.',
    parameters: { type: 'object', properties: { path: {}, offset: {}, limit: {} }, required: ['path'] },
  },
  {
    name: 'odd',
    purpose: 'Has an argument named "from" — a keyword.',
    parameters: { type: 'object', properties: { from: {} }, required: [] },
  },
];

describe('generated clients', () => {
  it('Python: keyword-only functions, **kwargs when an argument is no valid parameter name; compiles', () => {
    const src = pythonClient('tok', TOOLS);
    expect(src).toContain('def read_file(*, path, offset=_UNSET, limit=_UNSET):');
    expect(src).toContain('def odd(**kwargs):');
    expect(src).toContain('"\\u001eTETHER-RPC tok "');
    expect(src).not.toMatch(/[\u007f-\uffff]/);
    execFileSync('python3', ['-c', 'import sys; compile(sys.stdin.read(), "tether_tools.py", "exec")'], { input: src });
  });

  it('JavaScript: one exported function per tool; parses as a module', () => {
    const src = javascriptClient('tok', TOOLS);
    expect(src).toContain('export const read_file = (args = {}) => call("read_file", args);');
    execFileSync('node', ['--check', '--input-type=module'], { input: src });
  });

  it('describes each tool with its purpose and arguments', () => {
    expect(toolLines(TOOLS)).toBe(
      '- read_file(path, offset?, limit?): Read a text file.\n- odd(from?): Has an argument named "from" — a keyword.',
    );
  });
});
