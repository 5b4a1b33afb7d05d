// The gateway's nonce book on disk (SQLite under TETHER_HOME), so a signed decision replayed after a restart of
// `tether serve` is refused as well. Worker-only (better-sqlite3).
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirs, tetherHome } from '../config/home.js';
import { MAX_SKEW_MS, type Nonces } from './signature.js';

/** Where `tether serve` keeps the nonces it has seen. */
const nonceFile = (): string => join(tetherHome(), 'gateway', 'nonces.sqlite');

/**
 * Nonces live until their decision would be stale anyway (twice the timestamp window), then they are dropped:
 * the book stays small, and a decision older than the window is refused by its timestamp instead.
 */
export class SqliteNonceBook implements Nonces {
  private readonly db: Database.Database;
  private readonly prune: Database.Statement<[number]>;
  private readonly insert: Database.Statement<[string, number]>;

  constructor(file = nonceFile()) {
    makeDirs(dirname(file));
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, until INTEGER NOT NULL)');
    this.prune = this.db.prepare('DELETE FROM nonces WHERE until < ?');
    this.insert = this.db.prepare('INSERT OR IGNORE INTO nonces (nonce, until) VALUES (?, ?)');
  }

  use(nonce: string, now: number): boolean {
    this.prune.run(now);
    return this.insert.run(nonce, now + 2 * MAX_SKEW_MS).changes === 1;
  }

  close(): void {
    this.db.close();
  }
}
