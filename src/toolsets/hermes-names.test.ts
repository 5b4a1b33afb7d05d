import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { ToolRegistry } from '../registry/registry.js';
import { LEGACY_TOOLSETS } from './catalog.js';
import { HERMES_TOOLSETS } from './hermes-names.js';
import { isKnownToolset, resolveToolset, toolsetNotices, validateToolsets } from './resolve.js';

function registry(): ToolRegistry {
  const reg = new ToolRegistry(recordingLogger());
  const tools: [string, string][] = [
    ['terminal', 'terminal'],
    ['read_file', 'file'],
    ['web_search', 'web'],
    ['web_extract', 'web'],
    ['browser_navigate', 'browser'],
    ['execute_code', 'code_execution'],
    ['vision_analyze', 'vision'],
    ['image_generate', 'image_gen'],
    ['todo', 'todo'],
    ['memory', 'memory'],
    ['session_search', 'session_search'],
    ['delegate_task', 'delegation'],
    ['clarify', 'clarify'],
  ];
  for (const [name, toolset] of tools)
    reg.register({ name, toolset, description: name, schema: z.object({}), handler: () => '{}' });
  return reg;
}

const union = (names: readonly string[], reg: ToolRegistry): string[] =>
  [...new Set(names.flatMap((n) => [...resolveToolset(n, reg)]))].sort();

describe('Hermes toolset names', () => {
  const reg = registry();
  const aliases = Object.entries(HERMES_TOOLSETS).filter(([, h]) => h.use);
  const refused = Object.entries(HERMES_TOOLSETS).filter(([, h]) => !h.use);

  it.each(aliases)('%s is an alias: known, resolved like its tether toolsets, with a one-line notice', (name, h) => {
    expect(isKnownToolset(name, reg)).toBe(true);
    expect(validateToolsets([name], reg)).toBeUndefined();
    expect([...resolveToolset(name, reg)].sort()).toEqual(union(h.use!, reg));
    expect(resolveToolset(name, reg).size).toBeGreaterThan(0);
    const notices = toolsetNotices([name], reg);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`'${h.use![0]!}'`);
  });

  it.each(refused)('%s is refused naming what tether has, never as a bare unknown toolset', (name, h) => {
    expect(isKnownToolset(name, reg)).toBe(false);
    const message = validateToolsets([name], reg)!;
    expect(message).toContain(`'${name}' is a Hermes toolset: ${h.why!}`);
    expect(message).not.toContain('unknown toolset');
  });

  it.each(Object.entries(LEGACY_TOOLSETS))('old name %s reads as %s with a notice', (old, current) => {
    expect([...resolveToolset(old, reg)]).toEqual([...resolveToolset(current, reg)]);
    expect(toolsetNotices([old], reg)).toEqual([`toolset '${old}' is an old name: read as '${current}'`]);
  });

  it('hermes-acp is tether-acp: coding tools without clarify or image generation', () => {
    const tools = resolveToolset('hermes-acp', reg);
    expect(tools.has('terminal') && tools.has('read_file') && tools.has('vision_analyze')).toBe(true);
    expect(tools.has('clarify') || tools.has('image_generate')).toBe(false);
  });

  it('a toolset of tether with a Hermes name keeps its tether meaning', () => {
    const own = registry();
    own.register({
      name: 'mcp_search_q',
      toolset: 'search',
      description: 'q',
      schema: z.object({}),
      handler: () => '{}',
    });
    expect([...resolveToolset('search', own)]).toEqual(['mcp_search_q']);
    expect(toolsetNotices(['search'], own)).toEqual([]);
  });

  it('still names a toolset nobody knows', () => {
    expect(validateToolsets(['nonesuch', 'skills'], reg)).toBe(
      "'skills' is a Hermes toolset: " +
        HERMES_TOOLSETS.skills!.why! +
        "; unknown toolset 'nonesuch' (see 'tether toolsets')",
    );
  });
});
