// Walks a directory tree beneath the task's working directory for search tools: every directory is opened from its
// parent's descriptor without following links, so a link or a directory swapped for one mid-walk leads nowhere
// outside; links themselves are skipped, as before. Worker-only.
import { constants, type Dirent } from 'node:fs';
import { open, opendir, readdir, readlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { RACE_FREE } from '../fs/beneath.js';
import { resolveTaskPath, type FileScope } from './check-path.js';
import { openForReading, taskViewOf } from './task-files.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** A regular file met on the walk: its path relative to the walk's root, and how to read it (at most `max` bytes). */
export interface WalkedFile {
  rel: string;
  read(max: number): Promise<Buffer | undefined>;
}

const at = (dir: FileHandle, name: string): string => `/proc/self/fd/${dir.fd}/${name}`;

async function entries(dir: FileHandle): Promise<Dirent[]> {
  const list = await readdir(`/proc/self/fd/${dir.fd}`, { withFileTypes: true }).catch(() => []);
  return list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Reads a file named in `dir` if it is (still) a regular file no larger than `max`; undefined otherwise. */
async function readAt(dir: FileHandle, name: string, max: number): Promise<Buffer | undefined> {
  let h: FileHandle;
  try {
    h = await open(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await h.stat();
    if (!info.isFile() || info.size > max) return undefined;
    return await h.readFile();
  } finally {
    await h.close();
  }
}

/** Where a walk is and what it leaves out: names in `skip`, and what the task's view hides (`hidden`, by real path). */
interface WalkPlace {
  prefix: string;
  /** The directory's real path (every directory below the start is opened without following a link). */
  real: string;
  skip: ReadonlySet<string>;
  hidden?: (real: string) => boolean;
  signal?: AbortSignal;
}

async function* walkFrom(dir: FileHandle, w: WalkPlace): AsyncGenerator<WalkedFile> {
  const { prefix, skip, signal } = w;
  const list = (await entries(dir)).filter((e) => !w.hidden?.(join(w.real, e.name)));
  for (const e of list) {
    if (signal?.aborted) return;
    if (e.isFile()) yield { rel: prefix + e.name, read: (max) => readAt(dir, e.name, max) };
  }
  for (const e of list) {
    if (signal?.aborted) return;
    if (!e.isDirectory() || skip.has(e.name)) continue;
    let child: FileHandle;
    try {
      child = await open(at(dir, e.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch {
      continue; // gone, or a link now: not followed
    }
    try {
      yield* walkFrom(child, { ...w, prefix: `${prefix}${e.name}/`, real: join(w.real, e.name) });
    } finally {
      await child.close();
    }
  }
}

/** Where /proc is missing: the same walk by path (links not followed, but not race-free). */
async function* walkByPath(
  root: string,
  prefix: string,
  skip: ReadonlySet<string>,
  hidden?: (real: string) => boolean,
): AsyncGenerator<WalkedFile> {
  const dir = await opendir(root).catch(() => undefined);
  if (!dir) return;
  const list: Dirent[] = [];
  for await (const e of dir) if (!hidden?.(join(root, e.name))) list.push(e);
  list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of list)
    if (e.isFile()) {
      const full = join(root, e.name);
      yield {
        rel: prefix + e.name,
        read: async (max) => {
          const h = await open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(() => undefined);
          if (!h) return undefined;
          try {
            const info = await h.stat();
            return info.isFile() && info.size <= max ? await h.readFile() : undefined;
          } finally {
            await h.close();
          }
        },
      };
    }
  for (const e of list)
    if (e.isDirectory() && !skip.has(e.name))
      yield* walkByPath(join(root, e.name), `${prefix}${e.name}/`, skip, hidden);
}

/**
 * The regular files under `path` (a directory beneath the task's), files of a directory before its subdirectories,
 * each in name order; directories named in `skip` are not entered. Throws the file tools' refusals for the start.
 */
export async function* walkTaskDir(
  scope: FileScope,
  path: string,
  skip: ReadonlySet<string>,
  signal?: AbortSignal,
): AsyncGenerator<WalkedFile> {
  const start = await openForReading(scope, path);
  try {
    if (!start.info.isDirectory()) throw Object.assign(new Error(`Not a directory: ${path}`), { notDirectory: true });
    const real = RACE_FREE ? await readlink(`/proc/self/fd/${start.handle.fd}`) : resolveTaskPath(scope, path);
    // What the task's view hides below the start (usually nothing: then nothing is asked per entry).
    const view = (await taskViewOf(scope)).below(real);
    const hidden = view.clear
      ? undefined
      : (p: string): boolean => {
          const sight = view.sight(p);
          return sight !== undefined && 'hidden' in sight;
        };
    if (!RACE_FREE) {
      yield* walkByPath(real, '', skip, hidden);
      return;
    }
    yield* walkFrom(start.handle, { prefix: '', real, skip, hidden, signal });
  } finally {
    await start.handle.close();
  }
}
