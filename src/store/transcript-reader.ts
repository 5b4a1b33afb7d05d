// Reads a run's transcript from the worker's store (TETHER_HOME/tether.sqlite) without writing to it: for
// `tether serve`'s runs view, which shares TETHER_HOME with a worker on the same machine. Worker-only.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tetherHome } from '../config/home.js';

export interface StoredEntry {
  seq: number;
  turn: number;
  role: string;
  tool: string | null;
  content: string;
  at: string;
}

export const storePath = (): string => join(tetherHome(), 'tether.sqlite');

function withStore<T>(fallback: T, fn: (db: Database.Database) => T, path = storePath()): T {
  if (!existsSync(path)) return fallback;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 2000');
    return fn(db);
  } catch (err) {
    // A store made before the transcript table existed has nothing to show.
    if (/no such table/.test((err as Error).message)) return fallback;
    throw err;
  } finally {
    db.close();
  }
}

/** The run's entries in order, at most `limit` (the first ones); empty when this machine has no store or no entries. */
export function readTranscript(workflowId: string, limit = 2000, path?: string): StoredEntry[] {
  return withStore(
    [],
    (db) =>
      db
        .prepare('SELECT seq, turn, role, tool, content, at FROM transcript WHERE workflow_id = ? ORDER BY seq LIMIT ?')
        .all(workflowId, limit) as StoredEntry[],
    path,
  );
}

/** The run's task: the first user message of its transcript, if this machine has it. */
export function readTask(workflowId: string, path?: string): string | undefined {
  return withStore(
    undefined,
    (db) =>
      (
        db
          .prepare("SELECT content FROM transcript WHERE workflow_id = ? AND role = 'user' ORDER BY seq LIMIT 1")
          .get(workflowId) as { content: string } | undefined
      )?.content,
    path,
  );
}
