// Splits one turn's tool calls into ordered segments that may run concurrently. Pure and workflow-safe.
import type { ToolMeta } from '../common/types.js';

export interface PlannedCall {
  /** Position in the model's list; results are put back in this order. */
  position: number;
  name: string;
  args: string;
  meta?: ToolMeta;
}

/** A normalised POSIX path (no node:path in workflow code). */
export function normalisePath(cwd: string, p: string): string {
  const parts = (p.startsWith('/') ? p : `${cwd}/${p}`).split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(b === '/' ? b : `${b}/`) || b.startsWith(a === '/' ? a : `${a}/`);
}

function pathOf(call: PlannedCall, cwd: string): string | undefined {
  const arg = call.meta?.pathArg;
  if (!arg) return undefined;
  try {
    const parsed = JSON.parse(call.args || '{}') as Record<string, unknown>;
    const value = parsed[arg];
    return normalisePath(cwd, typeof value === 'string' ? value : '.');
  } catch {
    return undefined; // dispatch will report the bad arguments without touching anything
  }
}

/** Only parallel-safe tools share a segment; a tool that changes the world must also say which path it touches. */
function concurrent(call: PlannedCall): boolean {
  const m = call.meta;
  if (!m?.parallelSafe) return false;
  return m.sideEffects === 'read-only' || m.pathArg !== undefined;
}

/**
 * Consecutive concurrent calls form one segment until a call's path overlaps a path in the segment where
 * either side writes; every other call is a segment of its own. Segments run one after another.
 */
export function planSegments(calls: PlannedCall[], cwd: string): PlannedCall[][] {
  const segments: PlannedCall[][] = [];
  let current: { call: PlannedCall; path?: string; writes: boolean }[] = [];
  const close = (): void => {
    if (current.length > 0) segments.push(current.map((c) => c.call));
    current = [];
  };
  for (const call of calls) {
    if (!concurrent(call)) {
      close();
      segments.push([call]);
      continue;
    }
    const path = pathOf(call, cwd);
    const writes = call.meta!.sideEffects !== 'read-only';
    const clash =
      path !== undefined && current.some((c) => c.path !== undefined && (writes || c.writes) && overlaps(path, c.path));
    if (clash) close();
    current.push({ call, path, writes });
  }
  close();
  return segments;
}

/** Splits a segment into slices of at most `size` calls. */
export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
  return out;
}
