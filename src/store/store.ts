// The worker's SQLite store under TETHER_HOME (better-sqlite3): run transcripts with full-text search (FTS5) and
// the agent's memory notes. Writes are idempotent, so retried activities never duplicate rows. Worker-only.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { tetherHome } from '../config/home.js';

export interface TranscriptEntry {
  seq: number;
  turn: number;
  role: string;
  /** Tool name for tool results and calls. */
  tool?: string;
  content: string;
}

export interface SearchHit {
  workflowId: string;
  turn: number;
  role: string;
  tool: string | null;
  snippet: string;
}

export interface MemoryNote {
  id: number;
  content: string;
  created: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS transcript (
  workflow_id TEXT NOT NULL, seq INTEGER NOT NULL, turn INTEGER NOT NULL, role TEXT NOT NULL, tool TEXT,
  content TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (workflow_id, seq));
CREATE VIRTUAL TABLE IF NOT EXISTS transcript_fts USING fts5(content, workflow_id UNINDEXED, turn UNINDEXED, role UNINDEXED, tool UNINDEXED);
CREATE TABLE IF NOT EXISTS memory (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS applied_ops (op_id TEXT PRIMARY KEY, result TEXT NOT NULL);
`;

/** Words of a search turned into an FTS5 query: each a quoted phrase, so the model's text cannot inject syntax. */
export function ftsQuery(text: string, join = ' '): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(join);
}

export class Store {
  readonly db: Database.Database;

  constructor(readonly path = join(tetherHome(), 'tether.sqlite')) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  /** Adds transcript entries; an entry already stored (same run and sequence number) is skipped. */
  record(workflowId: string, entries: TranscriptEntry[]): number {
    const at = new Date().toISOString();
    const insert = this.db.prepare('INSERT OR IGNORE INTO transcript (workflow_id, seq, turn, role, tool, content, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const index = this.db.prepare('INSERT INTO transcript_fts (content, workflow_id, turn, role, tool) VALUES (?, ?, ?, ?, ?)');
    let added = 0;
    this.db.transaction(() => {
      for (const e of entries) {
        if (insert.run(workflowId, e.seq, e.turn, e.role, e.tool ?? null, e.content, at).changes === 0) continue;
        index.run(e.content, workflowId, e.turn, e.role, e.tool ?? null);
        added += 1;
      }
    })();
    return added;
  }

  /** Full-text search over transcripts, best matches first; all words must match, else any word. */
  search(text: string, limit: number, excludeWorkflowId?: string): SearchHit[] {
    const run = (query: string): SearchHit[] =>
      query === ''
        ? []
        : (this.db
            .prepare(
              `SELECT workflow_id AS workflowId, turn, role, tool, snippet(transcript_fts, 0, '[', ']', '…', 24) AS snippet
               FROM transcript_fts WHERE transcript_fts MATCH ? AND workflow_id IS NOT ? ORDER BY rank LIMIT ?`,
            )
            .all(query, excludeWorkflowId ?? null, limit) as SearchHit[]);
    const all = run(ftsQuery(text));
    return all.length > 0 ? all : run(ftsQuery(text, ' OR '));
  }

  memory(): MemoryNote[] {
    return this.db.prepare('SELECT id, content, created FROM memory ORDER BY id').all() as MemoryNote[];
  }

  /** Runs `fn` once per `opId` (a retried activity gets the first result back). */
  once(opId: string, fn: () => string): string {
    return this.db.transaction(() => {
      const done = this.db.prepare('SELECT result FROM applied_ops WHERE op_id = ?').get(opId) as { result: string } | undefined;
      if (done) return done.result;
      const result = fn();
      this.db.prepare('INSERT INTO applied_ops (op_id, result) VALUES (?, ?)').run(opId, result);
      return result;
    })();
  }

  close(): void {
    this.db.close();
  }
}
