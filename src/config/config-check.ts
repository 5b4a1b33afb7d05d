// Every problem of a config.yaml at once, each with its path and, for a mistyped key, the key it most likely meant:
// what `tether config check` prints and what every command that reads the file refuses it with. Worker-only.
import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';

export interface ConfigProblem {
  /** Dotted path of the setting (`approvals.mode`), or `(top level)`. */
  path: string;
  message: string;
  /** The whole line, when the message names the path itself (Hermes's keys: "terminal.cwd is a Hermes setting: ..."). */
  line?: string;
}

/** The inner schema of wrappers (default, prefault, optional, nullable, preprocess and transform pipes). */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { _zod: { def: Record<string, unknown> } };
  for (let i = 0; i < 20; i += 1) {
    const def = s._zod.def;
    const next = (def.innerType ?? (def.type === 'pipe' ? (isObjectLike(def.out) ? def.out : def.in) : undefined)) as
      typeof s | undefined;
    if (!next) break;
    s = next;
  }
  return s;
}

const isObjectLike = (s: unknown): boolean => {
  const t = (s as { _zod?: { def?: { type?: string } } })?._zod?.def?.type;
  return t === 'object' || t === 'record' || t === 'prefault' || t === 'default' || t === 'optional' || t === 'pipe';
};

/** The keys the schema knows at `path` (an object's shape; under a record, its values' keys), for suggestions. */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s = unwrap(schema) as z.ZodType & { _zod: { def: Record<string, unknown> } };
  for (const key of path) {
    const def = s._zod.def;
    if (def.type === 'object') {
      const shape = def.shape as Record<string, z.ZodType>;
      const next = typeof key === 'string' && Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (!next) return [];
      s = unwrap(next) as typeof s;
    } else if (def.type === 'record') {
      s = unwrap(def.valueType as z.ZodType) as typeof s;
    } else if (def.type === 'array') {
      s = unwrap(def.element as z.ZodType) as typeof s;
    } else return [];
  }
  const def = s._zod.def;
  return def.type === 'object' ? Object.keys(def.shape as object) : [];
}

const dotted = (path: readonly PropertyKey[]): string => path.map(String).join('.') || '(top level)';

/** A zod error as problems: an unknown key each on its own line, with the key it most likely meant. */
export function problemsOf(error: z.ZodError, schema: z.ZodType, prefix: readonly string[] = []): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, issue.path);
      for (const key of issue.keys) {
        const meant = didYouMean(key, known);
        out.push({
          path: dotted([...prefix, ...issue.path, key]),
          message: `unknown key${meant ? ` (did you mean ${meant}?)` : known.length ? ` (known here: ${known.join(', ')})` : ''}`,
        });
      }
    } else out.push({ path: dotted([...prefix, ...issue.path]), message: issue.message });
  }
  return out;
}

/** One line per problem, as errors and `tether config check` print them. */
export const problemLine = (p: ConfigProblem): string => p.line ?? `${p.path}: ${p.message}`;
