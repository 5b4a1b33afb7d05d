// The worker's SQLite store under TETHER_HOME (better-sqlite3): run transcripts with full-text search (FTS5), the
// agent's memory notes (when the deployment does not share them), and how far this worker has read the shared
// session journal. Writes are idempotent, so retried activities never duplicate rows. Worker-only.
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirs, tetherHome } from '../config/home.js';

import type { TranscriptEntry } from '../common/transcript.js';

interface SearchHit {
  workflowId: string;
  turn: number;
  role: string;
  tool: string | null;
  snippet: string;
}

interface MemoryNote {
  id: number;
  content: string;
  created: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS transcript (
  workflow_id TEXT NOT NULL, seq INTEGER NOT NULL, turn INTEGER NOT NULL, role TEXT NOT NULL, tool TEXT,
  content TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (workflow_id, seq));
CREATE VIRTUAL TABLE IF NOT EXISTS transcript_fts USING fts5(content, workflow_id UNINDEXED, seq UNINDEXED, turn UNINDEXED, role UNINDEXED, tool UNINDEXED);
CREATE TABLE IF NOT EXISTS memory (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS applied_ops (op_id TEXT PRIMARY KEY, result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal_cursor (task_queue TEXT PRIMARY KEY, segment INTEGER NOT NULL, events INTEGER NOT NULL, head INTEGER NOT NULL);
`;

/** How far this store has read a deployment's session journal, and the segment it last appended to. */
export interface JournalCursor {
  /** The segment being read, and how many of its history events were read. */
  segment: number;
  events: number;
  /** The segment this worker last appended to (writers start there). */
  head: number;
}

/** Words of a search turned into an FTS5 query: each a quoted phrase, so the model's text cannot inject syntax. */
export function ftsQuery(text: string, join = ' '): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(join);
}

export class Store {
  readonly db: Database.Database;

  constructor(readonly path = join(tetherHome(), 'tether.sqlite')) {
    makeDirs(dirname(path));
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  /**
   * Adds transcript entries. An entry already stored (same run and sequence number) with the same content is
   * skipped; with other content (a retried model call answered differently) it is replaced. Returns how many changed.
   */
  record(workflowId: string, entries: (TranscriptEntry & { at?: string })[]): number {
    const now = new Date().toISOString();
    const existing = this.db.prepare('SELECT content FROM transcript WHERE workflow_id = ? AND seq = ?');
    const upsert = this.db.prepare(
      'INSERT INTO transcript (workflow_id, seq, turn, role, tool, content, at) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (workflow_id, seq) DO UPDATE SET turn = excluded.turn, role = excluded.role, tool = excluded.tool, content = excluded.content, at = excluded.at',
    );
    const unindex = this.db.prepare('DELETE FROM transcript_fts WHERE workflow_id = ? AND seq = ?');
    const index = this.db.prepare(
      'INSERT INTO transcript_fts (content, workflow_id, seq, turn, role, tool) VALUES (?, ?, ?, ?, ?, ?)',
    );
    let changed = 0;
    this.db.transaction(() => {
      for (const e of entries) {
        const before = existing.get(workflowId, e.seq) as { content: string } | undefined;
        if (before?.content === e.content) continue;
        upsert.run(workflowId, e.seq, e.turn, e.role, e.tool ?? null, e.content, e.at ?? now);
        if (before) unindex.run(workflowId, e.seq);
        index.run(e.content, workflowId, e.seq, e.turn, e.role, e.tool ?? null);
        changed += 1;
      }
    })();
    return changed;
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
      const done = this.db.prepare('SELECT result FROM applied_ops WHERE op_id = ?').get(opId) as
        { result: string } | undefined;
      if (done) return done.result;
      const result = fn();
      this.db.prepare('INSERT INTO applied_ops (op_id, result) VALUES (?, ?)').run(opId, result);
      return result;
    })();
  }

  journalCursor(taskQueue: string): JournalCursor {
    return (
      (this.db.prepare('SELECT segment, events, head FROM journal_cursor WHERE task_queue = ?').get(taskQueue) as
        JournalCursor | undefined) ?? { segment: 0, events: 0, head: 0 }
    );
  }

  setJournalCursor(taskQueue: string, cursor: Partial<JournalCursor>): void {
    const c = { ...this.journalCursor(taskQueue), ...cursor };
    this.db
      .prepare(
        'INSERT INTO journal_cursor (task_queue, segment, events, head) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (task_queue) DO UPDATE SET segment = excluded.segment, events = excluded.events, head = excluded.head',
      )
      .run(taskQueue, c.segment, c.events, c.head);
  }

  close(): void {
    this.db.close();
  }
}
