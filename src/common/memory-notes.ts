// The memory tool's rules on a list of notes: add, replace, remove, read, within a bounded size; errors name what
// was wrong. The same rules for the shared memory workflow and the local store. Pure and workflow-safe.

export const MEMORY_LIMIT_CHARS = 20_000;
const MEMORY_ENTRY_CHARS = 2_000;

export interface MemoryNote {
  id: number;
  content: string;
  created: string;
}

export interface MemoryArgs {
  action: 'add' | 'replace' | 'remove' | 'read';
  content?: string;
  old_text?: string;
}

export interface MemoryOutcome {
  notes: MemoryNote[];
  /** The tool result the model sees. */
  result: string;
}

const fail = (notes: MemoryNote[], error: string): MemoryOutcome => ({ notes, result: JSON.stringify({ error }) });

const used = (notes: MemoryNote[]): number => notes.reduce((n, e) => n + e.content.length, 0);

export function memoryView(notes: MemoryNote[]): string {
  return JSON.stringify({
    notes: notes.map((e) => e.content),
    used_chars: used(notes),
    limit_chars: MEMORY_LIMIT_CHARS,
  });
}

/** One operation on `notes` (left as they are): the notes after it and what the model is told. */
export function applyMemoryOp(notes: MemoryNote[], args: MemoryArgs, next: { id: number; at: string }): MemoryOutcome {
  const done = (after: MemoryNote[]): MemoryOutcome => ({ notes: after, result: memoryView(after) });
  if (args.action === 'read') return done(notes);
  const content = args.content?.trim();
  if (args.action === 'add' || args.action === 'replace') {
    if (!content) return fail(notes, `content is required for ${args.action}`);
    if (content.length > MEMORY_ENTRY_CHARS)
      return fail(notes, `an entry may have at most ${MEMORY_ENTRY_CHARS} characters (this one has ${content.length})`);
  }
  const total = used(notes);
  if (args.action === 'add') {
    if (notes.some((e) => e.content === content)) return done(notes);
    if (total + content!.length > MEMORY_LIMIT_CHARS) {
      return fail(
        notes,
        `memory is full: ${total} of ${MEMORY_LIMIT_CHARS} characters used, this entry needs ${content!.length}. Remove or replace entries first.`,
      );
    }
    return done([...notes, { id: next.id, content: content!, created: next.at }]);
  }
  const needle = args.old_text?.trim();
  if (!needle) return fail(notes, `old_text is required for ${args.action}: give text that identifies the entry`);
  const hits = notes.filter((e) => e.content.includes(needle));
  if (hits.length === 0) return fail(notes, `no memory entry contains ${JSON.stringify(needle)}`);
  if (hits.length > 1)
    return fail(notes, `${hits.length} entries contain ${JSON.stringify(needle)}: give more of the text to pick one`);
  const target = hits[0]!;
  if (args.action === 'remove') return done(notes.filter((e) => e.id !== target.id));
  if (total - target.content.length + content!.length > MEMORY_LIMIT_CHARS) {
    return fail(
      notes,
      `memory is full: replacing would use ${total - target.content.length + content!.length} of ${MEMORY_LIMIT_CHARS} characters`,
    );
  }
  return done(notes.map((e) => (e.id === target.id ? { ...e, content: content! } : e)));
}
