// Runners' project files that are not what the tool expects: the gate judges the command, it never fails on them.
import { beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../engine/detect.js';
import { loadBashParser, type ParseBash } from '../../engine/parser.js';
import type { ScriptFile } from '../../engine/scripts.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});

/** The project holds `file` only: every other file the runner asks for is missing. */
class Project extends Map<string, ScriptFile> {
  override get(key: string): ScriptFile {
    return super.get(key) ?? { missing: true };
  }
}

const rules = (command: string, file: string, text: string): string[] =>
  detect(parse, command, { cwd: '/work/proj', files: new Project([[file, { text }]]) }).findings.map((f) => f.rule);

describe('malformed hook and task configs', () => {
  it.each([
    'repos: 3',
    'repos: {a: 1}',
    'repos: "x"',
    'repos:\n  -\n  - 3',
    'repos:\n  - repo: local\n    hooks: "x"',
    'repos:\n  - repo: local\n    hooks: {a: 1}',
    'repos:\n  - repo: local\n    hooks:\n      -\n      - 3',
  ])('pre-commit run reads %j without failing', (text) => {
    expect(rules('pre-commit run', '.pre-commit-config.yaml', text)).toEqual([]);
  });

  it('still judges the entries of a local hook', () => {
    const text = 'repos:\n  - repo: local\n    hooks:\n      - id: x\n        entry: kill -9 -1\n';
    expect(rules('pre-commit run', '.pre-commit-config.yaml', text)).toContain('kill-all');
  });

  it.each(['3', 'null', 'tasks: 3', 'tasks:\n  a: 3', 'tasks:\n  a:\n    cmds: {x: 1}'])(
    'task reads %j without failing',
    (text) => {
      expect(rules('task', 'Taskfile.yml', text)).toEqual([]);
    },
  );

  it.each(['3', 'null', 'pre-commit: 3', 'pre-commit:\n  commands: 3', 'pre-commit:\n  commands:\n    x: null'])(
    'lefthook run reads %j without failing',
    (text) => {
      expect(rules('lefthook run pre-commit', 'lefthook.yml', text)).toEqual([]);
    },
  );
});
