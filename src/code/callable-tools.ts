// Which tools an execute_code program may call, and how they are described to the model and the generated
// clients. Worker-only.
import type { ToolRegistry } from '../registry/registry.js';
import type { JsonSchema } from '../common/tool-definition.js';
import type { ToolEntry } from '../registry/types.js';

/** The tools a program may ever call; the ones that exist and are available are offered. */
export const CALLABLE_TOOLS: readonly string[] = [
  'web_search',
  'web_extract',
  'read_file',
  'write_file',
  'search_files',
  'patch',
  'terminal',
];

/** What a generated client needs to know about one tool. */
export interface CallableTool {
  name: string;
  /** The first sentence of its description. */
  purpose: string;
  parameters: JsonSchema;
}

/**
 * The callable tools registered and available on this worker now. The handler does not see the final list the
 * model was given, so this is the run-time rule; `schemaPatch` narrows the description to the final list as well.
 */
export function callableTools(reg: ToolRegistry, within?: ReadonlySet<string>): CallableTool[] {
  const checks = new Map<() => boolean, ReturnType<ToolRegistry['availability']>>();
  const out: CallableTool[] = [];
  for (const name of CALLABLE_TOOLS) {
    if (within && !within.has(name)) continue;
    const entry = reg.get(name);
    if (!entry || !entry.handler || !reg.availability(entry, checks).available) continue;
    out.push(describeTool(entry));
  }
  return out;
}

function describeTool(entry: Pick<ToolEntry, 'name' | 'description' | 'parameters'>): CallableTool {
  return { name: entry.name, purpose: firstSentence(entry.description), parameters: entry.parameters };
}

function firstSentence(text: string): string {
  const m = /^(.*?[.!?])(\s|$)/s.exec(text.trim());
  return (m?.[1] ?? text.trim()).replace(/\s+/g, ' ');
}

interface ArgumentInfo {
  name: string;
  required: boolean;
}

export function argumentsOf(parameters: JsonSchema): ArgumentInfo[] {
  const props = parameters.properties;
  const required = new Set(
    Array.isArray(parameters.required) ? parameters.required.filter((r): r is string => typeof r === 'string') : [],
  );
  if (typeof props !== 'object' || props === null) return [];
  return Object.keys(props).map((name) => ({ name, required: required.has(name) }));
}

/** One line per tool for the execute_code description: `read_file(path, offset?, limit?): Read a text file.` */
export function toolLines(tools: readonly CallableTool[]): string {
  return tools
    .map(
      (t) =>
        `- ${t.name}(${argumentsOf(t.parameters)
          .map((a) => (a.required ? a.name : `${a.name}?`))
          .join(', ')}): ${t.purpose}`,
    )
    .join('\n');
}
