// The toolsets that are not base toolsets: composites, platform presets, legacy names, and ones added at run time. Workflow-safe.
import type { SideEffects } from '../common/tool-definition.js';

export interface ToolsetDef {
  description: string;
  /** Tool names listed directly. */
  tools?: readonly string[];
  /** Other toolsets (base, composite or preset) whose tools this one includes; cycles are harmless. */
  includes?: readonly string[];
  /** Includes every base toolset whose name starts with this prefix (for example all `mcp-` toolsets). */
  includePrefix?: string;
  /** Includes every registered tool with one of these side-effect kinds. */
  includeSideEffects?: readonly SideEffects[];
  /** ...except the tools of these toolsets. */
  excludeToolsets?: readonly string[];
  kind: 'composite' | 'preset' | 'dynamic';
}

/** Every toolset a full interactive agent may use; presets start from this. */
const CORE = [
  'terminal',
  'file',
  'web',
  'browser',
  'code_execution',
  'vision',
  'image_gen',
  'todo',
  'memory',
  'session_search',
  'delegation',
  'clarify',
  'mcp',
] as const;

const without = (...drop: string[]): string[] => CORE.filter((t) => !drop.includes(t));

export const BUILTIN_TOOLSETS: Readonly<Record<string, ToolsetDef>> = {
  // Unattended by design (the local demonstration model uses it): clarify, which waits for a person, is left out.
  'read-only': {
    kind: 'composite',
    description: 'Every tool that only reads (no side effects) and needs no person',
    includeSideEffects: ['read-only'],
    excludeToolsets: ['clarify'],
  },
  mcp: { kind: 'composite', description: 'Tools of every connected MCP server', includePrefix: 'mcp-' },
  planning: {
    kind: 'composite',
    description: 'Plan and remember: todo, memory, session search',
    includes: ['todo', 'memory', 'session_search'],
  },
  debugging: {
    kind: 'composite',
    description: 'Run, read and fix: terminal, files, web',
    includes: ['terminal', 'file', 'web'],
  },
  research: {
    kind: 'composite',
    description: 'Find and read: web, browser, files',
    includes: ['web', 'browser', 'file'],
  },
  'tether-cli': {
    kind: 'preset',
    description: 'The interactive command line: every core toolset',
    includes: [...CORE],
  },
  'tether-gateway': {
    kind: 'preset',
    description: 'Agents answering on a messaging platform: core toolsets without delegation',
    includes: without('delegation'),
  },
  'tether-batch': {
    kind: 'preset',
    description: 'Unattended batch and scheduled runs: no tool that waits for a person',
    includes: without('clarify'),
  },
  // Hermes's hermes-acp: coding in an editor. Without clarify (the editor asks through permission requests) and
  // without the `mcp` composite: a session gets config.yaml's servers and its own editor's, never another's.
  'tether-acp': {
    kind: 'preset',
    description: 'Editors over ACP (tether acp): coding tools, without clarify or image generation',
    includes: [
      'terminal',
      'file',
      'web',
      'browser',
      'code_execution',
      'vision',
      'todo',
      'memory',
      'session_search',
      'delegation',
    ],
  },
  'tether-coding': {
    kind: 'preset',
    description: 'A curated coding set without interactive tools',
    includes: ['terminal', 'file', 'code_execution', 'web', 'todo', 'memory', 'session_search'],
  },
};

/** Names from before the toolsets were renamed, kept so old configurations keep working. */
export const LEGACY_TOOLSETS: Readonly<Record<string, string>> = {
  web_tools: 'web',
  terminal_tools: 'terminal',
  file_tools: 'file',
  browser_tools: 'browser',
  vision_tools: 'vision',
  image_tools: 'image_gen',
  code_tools: 'code_execution',
  todo_tools: 'todo',
  memory_tools: 'memory',
  session_search_tools: 'session_search',
  delegation_tools: 'delegation',
  clarify_tools: 'clarify',
};
