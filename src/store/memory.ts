// The agent's durable notes in this worker's SQLite store (`store.shared: false`, and the copy a shared memory
// starts from): the rules of src/common/memory-notes.ts applied in one transaction. Worker-only.
import { applyMemoryOp, type MemoryArgs, type MemoryNote } from '../common/memory-notes.js';
import type { Store } from './store.js';

export { MEMORY_LIMIT_CHARS, type MemoryArgs } from '../common/memory-notes.js';

/** Writes `after` over the notes table (ids kept), inside the caller's transaction. */
function write(store: Store, before: MemoryNote[], after: MemoryNote[]): void {
  const kept = new Map(after.map((n) => [n.id, n]));
  const del = store.db.prepare('DELETE FROM memory WHERE id = ?');
  const update = store.db.prepare('UPDATE memory SET content = ? WHERE id = ?');
  const insert = store.db.prepare('INSERT INTO memory (id, content, created) VALUES (?, ?, ?)');
  const had = new Map(before.map((n) => [n.id, n]));
  for (const n of before) if (!kept.has(n.id)) del.run(n.id);
  for (const n of after) {
    const old = had.get(n.id);
    if (!old) insert.run(n.id, n.content, n.created);
    else if (old.content !== n.content) update.run(n.content, n.id);
  }
}

export function applyMemory(store: Store, args: MemoryArgs): string {
  return store.db.transaction(() => {
    const notes = store.memory();
    const nextId = (
      store.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'memory'").get() as { seq: number } | undefined
    )?.seq;
    const id = Math.max(nextId ?? 0, ...notes.map((n) => n.id)) + 1;
    const outcome = applyMemoryOp(notes, args, { id, at: new Date().toISOString() });
    if (outcome.notes !== notes) write(store, notes, outcome.notes);
    return outcome.result;
  })();
}
