// The agent's durable notes: add, replace, remove, read, within a bounded size; errors name what was wrong. Worker-only.
import type { Store } from './store.js';

export const MEMORY_LIMIT_CHARS = 20_000;
const MEMORY_ENTRY_CHARS = 2_000;

export interface MemoryArgs {
  action: 'add' | 'replace' | 'remove' | 'read';
  content?: string;
  old_text?: string;
}

const fail = (error: string): string => JSON.stringify({ error });

export function applyMemory(store: Store, args: MemoryArgs): string {
  const notes = store.memory();
  const used = notes.reduce((n, e) => n + e.content.length, 0);
  const view = (): string => {
    const now = store.memory();
    return JSON.stringify({
      notes: now.map((e) => e.content),
      used_chars: now.reduce((n, e) => n + e.content.length, 0),
      limit_chars: MEMORY_LIMIT_CHARS,
    });
  };
  if (args.action === 'read') return view();
  const find = (): { id: number; content: string } | string => {
    const needle = args.old_text?.trim();
    if (!needle) return `old_text is required for ${args.action}: give text that identifies the entry`;
    const hits = notes.filter((e) => e.content.includes(needle));
    if (hits.length === 0) return `no memory entry contains ${JSON.stringify(needle)}`;
    if (hits.length > 1)
      return `${hits.length} entries contain ${JSON.stringify(needle)}: give more of the text to pick one`;
    return hits[0]!;
  };
  const content = args.content?.trim();
  if (args.action === 'add' || args.action === 'replace') {
    if (!content) return fail(`content is required for ${args.action}`);
    if (content.length > MEMORY_ENTRY_CHARS)
      return fail(`an entry may have at most ${MEMORY_ENTRY_CHARS} characters (this one has ${content.length})`);
  }
  if (args.action === 'add') {
    if (notes.some((e) => e.content === content)) return view();
    if (used + content!.length > MEMORY_LIMIT_CHARS) {
      return fail(
        `memory is full: ${used} of ${MEMORY_LIMIT_CHARS} characters used, this entry needs ${content!.length}. Remove or replace entries first.`,
      );
    }
    store.db.prepare('INSERT INTO memory (content, created) VALUES (?, ?)').run(content, new Date().toISOString());
    return view();
  }
  const target = find();
  if (typeof target === 'string') return fail(target);
  if (args.action === 'remove') {
    store.db.prepare('DELETE FROM memory WHERE id = ?').run(target.id);
    return view();
  }
  if (used - target.content.length + content!.length > MEMORY_LIMIT_CHARS) {
    return fail(
      `memory is full: replacing would use ${used - target.content.length + content!.length} of ${MEMORY_LIMIT_CHARS} characters`,
    );
  }
  store.db.prepare('UPDATE memory SET content = ? WHERE id = ?').run(content, target.id);
  return view();
}
