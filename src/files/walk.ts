// Walks a directory tree beneath the task's working directory for search tools: every directory is opened from its
// parent's descriptor without following links, so a link or a directory swapped for one mid-walk leads nowhere
// outside; links themselves are skipped, as before. Worker-only.
import { constants, type Dirent } from 'node:fs';
import { open, opendir, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { RACE_FREE } from './beneath.js';
import { resolveTaskPath, type FileScope } from './check-path.js';
import { openForReading } from './task-files.js';

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

async function* walkFrom(
  dir: FileHandle,
  prefix: string,
  skip: ReadonlySet<string>,
  signal?: AbortSignal,
): AsyncGenerator<WalkedFile> {
  const list = await entries(dir);
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
      yield* walkFrom(child, `${prefix}${e.name}/`, skip, signal);
    } finally {
      await child.close();
    }
  }
}

/** Where /proc is missing: the same walk by path (links not followed, but not race-free). */
async function* walkByPath(root: string, prefix: string, skip: ReadonlySet<string>): AsyncGenerator<WalkedFile> {
  const dir = await opendir(root).catch(() => undefined);
  if (!dir) return;
  const list: Dirent[] = [];
  for await (const e of dir) list.push(e);
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
    if (e.isDirectory() && !skip.has(e.name)) yield* walkByPath(join(root, e.name), `${prefix}${e.name}/`, skip);
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
    if (!RACE_FREE) {
      yield* walkByPath(resolveTaskPath(scope, path), '', skip);
      return;
    }
    yield* walkFrom(start.handle, '', skip, signal);
  } finally {
    await start.handle.close();
  }
}
