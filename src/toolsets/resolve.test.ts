import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { ToolRegistry } from '../registry/registry.js';
import type { ToolDefinition } from '../common/tool-definition.js';
import {
  canonicalToolset,
  getToolDefinitions,
  isKnownToolset,
  mcpToolsetName,
  registerToolset,
  resolveToolset,
  unregisterToolset,
} from './resolve.js';

function registryWith(tools: [name: string, toolset: string, available?: boolean][]) {
  const log = recordingLogger();
  const reg = new ToolRegistry(log);
  for (const [name, toolset, available = true] of tools) {
    reg.register({
      name,
      toolset,
      description: `${name} tool`,
      schema: z.object({}),
      handler: () => '{}',
      checkFn: () => available,
    });
  }
  return { reg, log };
}

const names = (defs: ToolDefinition[]) => defs.map((d) => d.function.name);

const standard = (): ReturnType<typeof registryWith> =>
  registryWith([
    ['terminal', 'terminal'],
    ['read_file', 'file'],
    ['write_file', 'file'],
    ['web_search', 'web'],
    ['web_extract', 'web', false],
    ['todo', 'todo'],
    ['clarify', 'clarify'],
    ['mcp_fs_read', 'mcp-fs'],
    ['mcp_git_log', 'mcp-git'],
  ]);

afterEach(() => {
  for (const n of ['loop-a', 'loop-b', 'extra']) unregisterToolset(n);
});

describe('resolveToolset', () => {
  it('resolves base toolsets from registrations and composites from their includes', () => {
    const { reg } = standard();
    expect([...resolveToolset('file', reg)].sort()).toEqual(['read_file', 'write_file']);
    expect([...resolveToolset('debugging', reg)].sort()).toEqual([
      'read_file',
      'terminal',
      'web_extract',
      'web_search',
      'write_file',
    ]);
  });

  it('survives cycles between composites', () => {
    const { reg } = standard();
    registerToolset('loop-a', { description: '', includes: ['loop-b', 'terminal'] });
    registerToolset('loop-b', { description: '', includes: ['loop-a', 'todo'] });
    expect([...resolveToolset('loop-a', reg)].sort()).toEqual(['terminal', 'todo']);
  });

  it('maps legacy *_tools names to the current toolsets', () => {
    const { reg } = standard();
    expect(canonicalToolset('file_tools')).toBe('file');
    expect([...resolveToolset('web_tools', reg)].sort()).toEqual(['web_extract', 'web_search']);
    expect(isKnownToolset('terminal_tools', reg)).toBe(true);
    expect(isKnownToolset('bogus_tools', reg)).toBe(false);
  });

  it('includes every mcp-<server> toolset in the dynamic mcp composite', () => {
    const { reg } = standard();
    expect(mcpToolsetName('fs')).toBe('mcp-fs');
    expect([...resolveToolset('mcp', reg)].sort()).toEqual(['mcp_fs_read', 'mcp_git_log']);
    reg.register({
      name: 'mcp_new_ping',
      toolset: mcpToolsetName('new'),
      description: '',
      schema: z.object({}),
      handler: () => '{}',
    });
    expect(resolveToolset('mcp', reg).has('mcp_new_ping')).toBe(true);
  });

  it('keeps interactive tools out of the batch and coding presets but in the CLI preset', () => {
    const { reg } = standard();
    expect(resolveToolset('tether-cli', reg).has('clarify')).toBe(true);
    expect(resolveToolset('tether-batch', reg).has('clarify')).toBe(false);
    expect(resolveToolset('tether-coding', reg).has('clarify')).toBe(false);
    expect(resolveToolset('tether-coding', reg).has('terminal')).toBe(true);
    expect(resolveToolset('tether-gateway', reg).has('mcp_fs_read')).toBe(true);
  });

  it('treats a tool name as a name, not a toolset, and never follows prototype keys', () => {
    const { reg } = standard();
    expect(resolveToolset('constructor', reg).size).toBe(0);
    expect(resolveToolset('__proto__', reg).size).toBe(0);
    expect(isKnownToolset('toString', reg)).toBe(false);
  });
});

describe('getToolDefinitions', () => {
  it('neither enabled nor disabled → every available tool', () => {
    const { reg } = standard();
    expect(names(getToolDefinitions({}, reg))).toEqual([
      'terminal',
      'read_file',
      'write_file',
      'web_search',
      'todo',
      'clarify',
      'mcp_fs_read',
      'mcp_git_log',
    ]);
  });

  it('enabled only → just those toolsets', () => {
    const { reg } = standard();
    expect(names(getToolDefinitions({ enabledToolsets: ['file', 'todo_tools'] }, reg))).toEqual([
      'read_file',
      'write_file',
      'todo',
    ]);
  });

  it('disabled only → all minus those', () => {
    const { reg } = standard();
    expect(names(getToolDefinitions({ disabledToolsets: ['mcp', 'web', 'clarify'] }, reg))).toEqual([
      'terminal',
      'read_file',
      'write_file',
      'todo',
    ]);
  });

  it('both → enabled minus disabled', () => {
    const { reg } = standard();
    expect(names(getToolDefinitions({ enabledToolsets: ['debugging'], disabledToolsets: ['file'] }, reg))).toEqual([
      'terminal',
      'web_search',
    ]);
  });

  it('warns about an unknown toolset unless quiet', () => {
    const { reg, log } = standard();
    getToolDefinitions({ enabledToolsets: ['nope'] }, reg, log);
    expect(log.lines.map((l) => l.msg)).toContain("Unknown toolset 'nope' ignored");
    const quiet = recordingLogger();
    getToolDefinitions({ enabledToolsets: ['nope'], quiet: true }, reg, quiet);
    expect(quiet.lines).toEqual([]);
  });

  it('patches schemas against the final tool list (execute_code and browser_navigate)', () => {
    const { reg } = standard();
    reg.register({
      name: 'execute_code',
      toolset: 'code_execution',
      description: 'Run a script that can call tools.',
      schema: z.object({ code: z.string() }),
      handler: () => '{}',
      schemaPatch: (def, final) => {
        const callable = ['terminal', 'read_file', 'write_file', 'web_search', 'web_extract'].filter((t) =>
          final.has(t),
        );
        def.function.description += ` Tools available inside the script: ${callable.join(', ')}.`;
        return def;
      },
    });
    reg.register({
      name: 'browser_navigate',
      toolset: 'browser',
      description: 'Open a page in the browser.',
      schema: z.object({ url: z.string() }),
      handler: () => '{}',
      schemaPatch: (def, final) => {
        const alt = ['web_search', 'web_extract'].filter((t) => final.has(t));
        if (alt.length > 0) def.function.description += ` For simple look-ups prefer ${alt.join(' or ')}.`;
        return def;
      },
    });
    const all = getToolDefinitions({}, reg);
    const exec = all.find((d) => d.function.name === 'execute_code')!;
    // web_extract is registered but unavailable, so it is not offered inside the script.
    expect(exec.function.description).toContain('terminal, read_file, write_file, web_search.');
    expect(all.find((d) => d.function.name === 'browser_navigate')!.function.description).toContain(
      'prefer web_search.',
    );

    const noWeb = getToolDefinitions({ disabledToolsets: ['web', 'file'] }, reg);
    expect(noWeb.find((d) => d.function.name === 'execute_code')!.function.description).toMatch(
      /inside the script: terminal\.$/,
    );
    expect(noWeb.find((d) => d.function.name === 'browser_navigate')!.function.description).toBe(
      'Open a page in the browser.',
    );
    // Patching works on copies: the registered description is unchanged.
    expect(reg.get('execute_code')!.description).toBe('Run a script that can call tools.');
  });
});

describe('the read-only composite', () => {
  it('takes every read-only tool except those that wait for a person', () => {
    const { reg } = registryWith([]);
    for (const [name, toolset, sideEffects] of [
      ['read_file', 'file', 'read-only'],
      ['clarify', 'clarify', 'read-only'],
      ['terminal', 'terminal', 'changes-world'],
    ] as const) {
      reg.register({ name, toolset, description: name, schema: z.object({}), handler: () => '{}', sideEffects });
    }
    expect([...resolveToolset('read-only', reg)]).toEqual(['read_file']);
  });
});
