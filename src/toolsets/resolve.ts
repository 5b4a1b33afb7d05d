// Toolset resolution and the tool definitions the model receives (enabled/disabled filtering, availability). Worker-only.
import { lazyLogger, type Logger } from '../logging/logger.js';
import { registry } from '../registry/index.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolDefinition } from '../common/tool-definition.js';
import { BUILTIN_TOOLSETS, LEGACY_TOOLSETS, type ToolsetDef } from './catalog.js';
import { HERMES_TOOLSETS } from './hermes-names.js';

/** Toolsets added while running (MCP servers, plugins); same shape as the built-in catalog. */
const dynamicToolsets = new Map<string, ToolsetDef>();

export function registerToolset(name: string, def: Omit<ToolsetDef, 'kind'>): void {
  dynamicToolsets.set(name, { ...def, kind: 'dynamic' });
}

export function unregisterToolset(name: string): void {
  dynamicToolsets.delete(name);
}

/** The toolset name MCP server `server` registers its tools under. */
export function mcpToolsetName(server: string): string {
  return `mcp-${server}`;
}

function definitionOf(name: string): ToolsetDef | undefined {
  return dynamicToolsets.get(name) ?? (Object.hasOwn(BUILTIN_TOOLSETS, name) ? BUILTIN_TOOLSETS[name] : undefined);
}

/** The current name for a legacy `*_tools` name; other names are returned as they are. */
export function canonicalToolset(name: string): string {
  if (Object.hasOwn(LEGACY_TOOLSETS, name)) return LEGACY_TOOLSETS[name]!;
  return name;
}

/** The tether toolsets a Hermes name stands for; undefined when it is not one, or one tether refuses. */
function hermesTargets(name: string, reg: ToolRegistry): readonly string[] | undefined {
  // A toolset of tether's own (an MCP server named `search`, say) wins over Hermes's meaning of the name.
  if (definitionOf(name) !== undefined || reg.toolsets().has(name) || !Object.hasOwn(HERMES_TOOLSETS, name))
    return undefined;
  return HERMES_TOOLSETS[name]!.use;
}

export function isKnownToolset(name: string, reg: ToolRegistry = registry): boolean {
  const n = canonicalToolset(name);
  return n === 'all' || definitionOf(n) !== undefined || reg.toolsets().has(n) || hermesTargets(n, reg) !== undefined;
}

/** An error message naming the unknown toolsets among `names` (and what to use for Hermes's), or undefined when all are known. */
export function validateToolsets(names: readonly string[], reg: ToolRegistry = registry): string | undefined {
  const unknown = names.filter((n) => !isKnownToolset(n, reg));
  if (unknown.length === 0) return undefined;
  const hermes = unknown
    .filter((n) => Object.hasOwn(HERMES_TOOLSETS, n))
    .map((n) => `'${n}' is a Hermes toolset: ${HERMES_TOOLSETS[n]!.why ?? 'tether has none like it'}`);
  const rest = unknown.filter((n) => !Object.hasOwn(HERMES_TOOLSETS, n));
  return [
    ...hermes,
    ...(rest.length > 0 ? [`unknown toolset ${rest.map((n) => `'${n}'`).join(', ')} (see 'tether toolsets')`] : []),
  ].join('; ');
}

/** One line for each old or Hermes name among `names`, saying which tether toolsets it is read as. */
export function toolsetNotices(names: readonly string[], reg: ToolRegistry = registry): string[] {
  const notices: string[] = [];
  for (const n of names) {
    if (Object.hasOwn(LEGACY_TOOLSETS, n))
      notices.push(`toolset '${n}' is an old name: read as '${LEGACY_TOOLSETS[n]!}'`);
    const targets = hermesTargets(n, reg);
    const why = Object.hasOwn(HERMES_TOOLSETS, n) ? HERMES_TOOLSETS[n]!.why : undefined;
    if (targets)
      notices.push(
        `toolset '${n}' is Hermes's name: read as ${targets.map((t) => `'${t}'`).join(', ')}${why ? ` (${why})` : ''}`,
      );
  }
  return notices;
}

/** Every toolset name a user may give: base, composite, preset, dynamic (legacy names are accepted too). */
export function listToolsets(
  reg: ToolRegistry = registry,
): { name: string; kind: string; description: string; tools: string[] }[] {
  const base = reg.toolsets();
  const names = new Set([...base.keys(), ...Object.keys(BUILTIN_TOOLSETS), ...dynamicToolsets.keys()]);
  return [...names].sort().map((name) => {
    const def = definitionOf(name);
    return {
      name,
      kind: def?.kind ?? 'base',
      description: def?.description ?? `Tools registered in toolset '${name}'`,
      tools: [...resolveToolset(name, reg)].sort(),
    };
  });
}

/** Tool names in a toolset, following composites and presets; unknown names resolve to nothing. */
export function resolveToolset(name: string, reg: ToolRegistry = registry): Set<string> {
  const out = new Set<string>();
  const base = reg.toolsets();
  const visited = new Set<string>();
  const visit = (raw: string): void => {
    const n = canonicalToolset(raw);
    if (visited.has(n)) return;
    visited.add(n);
    if (n === 'all') {
      for (const t of reg.all()) out.add(t.name);
      return;
    }
    const hermes = hermesTargets(n, reg);
    if (hermes) {
      for (const target of hermes) visit(target);
      return;
    }
    for (const t of base.get(n) ?? []) out.add(t);
    const def = definitionOf(n);
    if (!def) return;
    for (const t of def.tools ?? []) if (reg.get(t)) out.add(t);
    for (const inc of def.includes ?? []) visit(inc);
    if (def.includeSideEffects) {
      for (const t of reg.all())
        if (def.includeSideEffects.includes(t.sideEffects) && !def.excludeToolsets?.includes(t.toolset))
          out.add(t.name);
    }
    if (def.includePrefix) {
      for (const b of base.keys()) if (b.startsWith(def.includePrefix)) visit(b);
    }
  };
  visit(name);
  return out;
}

interface DefinitionOptions {
  enabledToolsets?: readonly string[];
  disabledToolsets?: readonly string[];
  /** Do not log unknown toolset names. */
  quiet?: boolean;
}

/** Names selected by the enabled/disabled rules, before availability filtering, in registration order. */
export function selectToolNames(
  opts: DefinitionOptions = {},
  reg: ToolRegistry = registry,
  log: Logger = lazyLogger,
): string[] {
  const expand = (names: readonly string[]): Set<string> => {
    const out = new Set<string>();
    for (const n of names) {
      if (!opts.quiet && !isKnownToolset(n, reg)) log.warn({ toolset: n }, `Unknown toolset '${n}' ignored`);
      for (const t of resolveToolset(n, reg)) out.add(t);
    }
    return out;
  };
  const all = reg.all().map((t) => t.name);
  const enabled = opts.enabledToolsets ? expand(opts.enabledToolsets) : undefined;
  const disabled = opts.disabledToolsets ? expand(opts.disabledToolsets) : new Set<string>();
  return all.filter((t) => (!enabled || enabled.has(t)) && !disabled.has(t));
}

/**
 * enabled given → only those; disabled given → all minus those; neither → all; both → enabled minus
 * disabled. Then availability checks, then schema patches that see the final list.
 */
export function getToolDefinitions(
  opts: DefinitionOptions = {},
  reg: ToolRegistry = registry,
  log: Logger = lazyLogger,
): ToolDefinition[] {
  return reg.getDefinitions(selectToolNames(opts, reg, log));
}
