// The checks by program name. Each module registers the table it holds where it defines it
// (`judges(import.meta.url, { 'curl wget': ... })`); registered.ts imports every such module, and a test reads the
// source to find any module left out. The lookup (dispatch.ts) and `npm run detector:who` read the registrations.
// Pure (registration happens once, at import).
import type { Argv } from '../engine/argv.js';
import type { Check, CheckContext, Io } from './types.js';
import { keyTable } from '../engine/names.js';

export interface Registration {
  /** The module that holds the table, as a path under src/detector (`checks/files.ts`). */
  module: string;
  table: Readonly<Record<string, Check>>;
  /** Its names are judged fully here: their words are not a resource CLI's verbs (databases, shells, system tools). */
  claims: boolean;
  /** Its names are backed by the generic resource verbs even where another table claims them (infrastructure CLIs). */
  backedByVerbs: boolean;
}

const registered: Registration[] = [];

/** The path under src/detector of a module's URL, as its source is named (`.../dist/src/detector/x.js` → `x.ts`). */
export const detectorModule = (url: string): string => url.replace(/^.*\/detector\//, '').replace(/\.js$/, '.ts');

/**
 * Registers a module's checks by program name; one key may name several programs judged alike. Returns the table
 * (several names a key expanded).
 */
export function judges(
  url: string,
  spec: Readonly<Record<string, Check>>,
  options: { claims?: true; backedByVerbs?: true } = {},
): Readonly<Record<string, Check>> {
  const table = keyTable(spec);
  registered.push({
    module: detectorModule(url),
    table,
    claims: options.claims === true,
    backedByVerbs: options.backedByVerbs === true,
  });
  return table;
}

/** Every table registered so far, in the order its module was imported. */
export const registrations = (): readonly Registration[] => registered;

/**
 * The check of a program family: its command line read once (`read`; undefined when it is not the family's), then
 * every judgement of the family on that reading, in order.
 */
export function familyCheck<T>(
  read: (cmd: Argv, io: Io) => T | undefined,
  judgements: readonly ((call: T, cmd: Argv, io: Io, ctx: CheckContext) => void)[],
): Check {
  return (cmd, io, ctx) => {
    const call = read(cmd, io);
    if (call !== undefined) for (const judge of judgements) judge(call, cmd, io, ctx);
  };
}
