// What a checkpoint says about itself: the run, the turn and the call it preceded, the directory, its size; kept
// as JSON in its commit's message under a one-line subject. Worker-only.
import type { Oid } from './git-objects.js';

export interface CheckpointMeta {
  v: 1;
  /** `turn`: taken by a run before a turn's first call that may change files; `rollback`: taken before a rollback. */
  kind: 'turn' | 'rollback';
  workflowId: string;
  /** The first run id of the workflow's chain of runs (continue-as-new keeps it; a new run with the same id does not). */
  chain: string;
  /** The turn whose calls followed it, numbered as `tether status` shows them (0 for a rollback's). */
  turn: number;
  /** The call it preceded: id, tool and its arguments, shortened. */
  callId?: string;
  tool?: string;
  args?: string;
  /** When it was taken, in milliseconds since the epoch (orders checkpoints taken within one second). */
  at: number;
  /** The task directory, as a real path. */
  cwd: string;
  /** Files and links in it, and their bytes. */
  files: number;
  bytes: number;
  /** A blob listing permission bits that git's file modes do not carry (see scan.ts). */
  perms?: Oid;
  /** Left out: files over checkpoints.max_file_bytes (the first few by name, and how many), unreadable, special. */
  skipped?: { oversize: string[]; oversizeCount: number; unreadable: number; special: number };
  /** A rollback's: the checkpoint it went back to, the path it restored (all when absent), who asked. */
  rollback?: { to: string; path?: string; by: string };
}

const MAX_ARGS = 200;

export function shortArgs(args: string): string {
  const flat = args.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_ARGS ? `${flat.slice(0, MAX_ARGS - 1)}…` : flat;
}

function subject(m: CheckpointMeta): string {
  if (m.kind === 'rollback') return `before rollback to ${m.rollback?.to.slice(0, 12) ?? '?'}`;
  return `before turn ${m.turn}${m.tool ? `: ${m.tool}` : ''}`;
}

export function encodeMeta(m: CheckpointMeta): string {
  return `${subject(m)}\n\n${JSON.stringify(m)}\n`;
}

/** The metadata of a commit message, or undefined when it is not one of tether's. */
export function decodeMeta(message: string): CheckpointMeta | undefined {
  const start = message.indexOf('\n\n');
  if (start < 0) return undefined;
  try {
    const m = JSON.parse(message.slice(start + 2)) as CheckpointMeta;
    return m && m.v === 1 && typeof m.workflowId === 'string' && typeof m.cwd === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}
