// Opens paths beneath a root directory so that no symlink, `..` or rename race can lead outside it at the moment
// of use: each component is opened from the descriptor of its parent without following links (openat with
// O_NOFOLLOW, reached through /proc/self/fd), and a link found on the way is resolved by hand against the root.
// Worker-only.
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, readlink, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { TetherError } from '../common/errors.js';

// (libuv opens every descriptor close-on-exec itself.)
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_CREAT, O_WRONLY, O_RDWR } = constants;

/** Links followed (and lookups retried after a race) in one path before it is refused, as the kernel's own limit. */
const MAX_HOPS = 40;

/** Linux's /proc/self/fd: a directory descriptor's magic link, through which a name is looked up in that directory. */
export const RACE_FREE = process.platform === 'linux' && existsSync('/proc/self/fd');

const at = (dir: FileHandle, name: string): string => `/proc/self/fd/${dir.fd}/${name}`;

function outside(shown: string, root: string, why: string): TetherError {
  return new TetherError('Path.OutsideWorkdir', `path '${shown}' ${why} the working directory ${root}`);
}

/**
 * The components of `path` relative to `root` (lexically: `..` is resolved later, against the directories actually
 * opened). An absolute path must name the root or something under it, as given or as the root really is.
 */
function componentsOf(root: string, realRoot: string, path: string): string[] {
  if (!isAbsolute(path)) return path.split('/');
  for (const base of [root, realRoot]) {
    const rel = relative(base, resolve(path));
    if (rel === '') return [];
    if (!rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep);
  }
  throw outside(path, root, 'is outside');
}

/** What the walk ends on: the directory holding the last component (held open), and that component's name. */
export interface Located {
  dir: FileHandle;
  /** The last component ('' when the path is the root itself). */
  name: string;
  /** The path as resolved, relative to the root ('.' for the root). */
  rel: string;
}

export interface LocateOptions {
  /** Make missing directories on the way (write_file's parents). */
  mkdirs?: boolean;
  /** Follow a link in the last component (resolved beneath the root like any other). */
  followLast?: boolean;
  /**
   * Asked with the real path of each directory about to be made and of the name about to be opened (its
   * directory's real path, from the descriptor, and the name): throws to refuse. The task's view (task-view.ts).
   */
  check?: (real: string, o: { writing: boolean }) => void;
}

/** The real path of a directory descriptor, and of a name in it. */
async function realAt(dir: FileHandle, name: string): Promise<string> {
  const base = await readlink(`/proc/self/fd/${dir.fd}`);
  return name === '' ? base : base === '/' ? `/${name}` : `${base}/${name}`;
}

/**
 * A root directory and the race-free way to reach names beneath it. `realRoot` is where the root really is (links in
 * its own path are the configuration's, not the agent's, and are followed once, when it is opened).
 */
export class Beneath {
  private constructor(
    readonly root: string,
    private readonly realRoot: string,
    private readonly rootHandle: FileHandle,
  ) {}

  static async open(root: string): Promise<Beneath> {
    const handle = await open(root, O_RDONLY | O_DIRECTORY);
    const real = RACE_FREE ? await readlink(`/proc/self/fd/${handle.fd}`).catch(() => root) : root;
    return new Beneath(root, real, handle);
  }

  async close(): Promise<void> {
    await this.rootHandle.close();
  }

  /** Runs `fn` with the root opened, and closes it after, whatever happens. */
  static async with<T>(root: string, fn: (b: Beneath) => Promise<T>): Promise<T> {
    const b = await Beneath.open(root);
    try {
      return await fn(b);
    } finally {
      await b.close();
    }
  }

  /**
   * Walks `path` to its last component. Every directory on the way is opened from its parent's descriptor with
   * O_NOFOLLOW; a link is read and its target walked instead (an absolute one only when it names a place under the
   * root), `..` goes back to the directory opened before (never above the root). The caller closes `dir`.
   */
  async locate(path: string, o: LocateOptions = {}): Promise<Located> {
    const queue = componentsOf(this.root, this.realRoot, path);
    const stack: FileHandle[] = [];
    const names: string[] = [];
    const top = (): FileHandle => stack[stack.length - 1] ?? this.rootHandle;
    const release = async (keep?: FileHandle): Promise<void> => {
      for (const h of stack) if (h !== keep) await h.close();
      stack.length = 0;
    };
    let hops = 0;
    try {
      for (;;) {
        // Skip empty and '.' components; the last real one is the result.
        while (queue.length > 0 && (queue[0] === '' || queue[0] === '.')) queue.shift();
        if (queue.length === 0) {
          // The path is a directory (the root, or one reached by `..` or a link): its parent is not needed.
          const dir = stack.length > 0 ? stack.pop()! : await this.reopenRoot();
          await release();
          return { dir, name: '', rel: names.join('/') || '.' };
        }
        const name = queue.shift()!;
        if (name === '..') {
          if (stack.length === 0) throw outside(path, this.root, 'leads outside');
          await stack.pop()!.close();
          names.pop();
          continue;
        }
        const last = queue.every((c) => c === '' || c === '.');
        if (last && !o.followLast) {
          const dir = stack.length > 0 ? stack.pop()! : await this.reopenRoot();
          await release();
          return { dir, name, rel: [...names, name].join('/') };
        }
        let child: FileHandle | undefined;
        try {
          child = await open(at(top(), name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' && o.mkdirs && !last) {
            o.check?.(await realAt(top(), name), { writing: true });
            await mkdir(at(top(), name)).catch((e: NodeJS.ErrnoException) => {
              if (e.code !== 'EEXIST') throw e;
            });
            queue.unshift(name);
            if ((hops += 1) > MAX_HOPS) throw loop(path);
            continue;
          }
          if (code !== 'ENOTDIR' && code !== 'ELOOP') {
            if (code === 'ENOENT' && last) {
              const dir = stack.length > 0 ? stack.pop()! : await this.reopenRoot();
              await release();
              return { dir, name, rel: [...names, name].join('/') };
            }
            throw err;
          }
          const target = await this.linkAt(top(), name);
          if (target === undefined) {
            // A file (or something not a directory) where the path goes on: a plain ENOTDIR for the caller, or the
            // last component, which is the result.
            if (!last) throw Object.assign(new Error(`${[...names, name].join('/')} is not a directory`), { code });
            const dir = stack.length > 0 ? stack.pop()! : await this.reopenRoot();
            await release();
            return { dir, name, rel: [...names, name].join('/') };
          }
          // A link is followed only where the task could read it: one inside a hidden directory is not (its target
          // would tell what the hidden directory holds).
          o.check?.(await realAt(top(), name), { writing: false });
          if ((hops += 1) > MAX_HOPS) throw loop(path);
          if (isAbsolute(target)) {
            const rel = componentsOrOutside(this.root, this.realRoot, target, path);
            await release();
            names.length = 0;
            queue.unshift(...rel);
          } else {
            queue.unshift(...target.split('/'));
          }
          continue;
        }
        stack.push(child);
        names.push(name);
      }
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** The link's target when `name` in `dir` is a symbolic link now; undefined when it is anything else or missing. */
  private async linkAt(dir: FileHandle, name: string, tries = 0): Promise<string | undefined> {
    try {
      const info = await lstat(at(dir, name));
      if (!info.isSymbolicLink()) return undefined;
      return await readlink(at(dir, name));
    } catch (err) {
      // Changed between the two calls (no longer a link): look again, a bounded number of times.
      if ((err as NodeJS.ErrnoException).code === 'EINVAL' && tries < MAX_HOPS)
        return this.linkAt(dir, name, tries + 1);
      return undefined;
    }
  }

  /** A descriptor of the root that the caller may close. */
  private reopenRoot(): Promise<FileHandle> {
    return open(`/proc/self/fd/${this.rootHandle.fd}`, O_RDONLY | O_DIRECTORY);
  }

  /**
   * Opens `path` with `flags` (O_NOFOLLOW is always added: the last component is reached by hand). O_NONBLOCK keeps
   * a FIFO from hanging the worker; callers check the file type on the descriptor they got.
   */
  async open(
    path: string,
    flags: number,
    o: LocateOptions & { mode?: number } = {},
  ): Promise<{ handle: FileHandle; rel: string }> {
    for (let tries = 0; ; tries += 1) {
      const loc = await this.locate(path, { ...o, followLast: true });
      try {
        if (o.check)
          o.check(await realAt(loc.dir, loc.name), { writing: (flags & (O_CREAT | O_WRONLY | O_RDWR)) !== 0 });
        // A directory is reopened through its own descriptor's magic link, which O_NOFOLLOW would refuse.
        const handle = await open(
          loc.name === '' ? `/proc/self/fd/${loc.dir.fd}` : at(loc.dir, loc.name),
          flags | (loc.name === '' ? 0 : O_NOFOLLOW) | O_NONBLOCK,
          o.mode ?? 0o666,
        );
        return { handle, rel: loc.rel };
      } catch (err) {
        // The last component became a link after it was walked: walk it again (a link is never opened through).
        if ((err as NodeJS.ErrnoException).code !== 'ELOOP' || tries >= MAX_HOPS) throw err;
      } finally {
        await loc.dir.close();
      }
    }
  }
}

function loop(path: string): TetherError {
  return new TetherError('Path.OutsideWorkdir', `path '${path}' has too many levels of symbolic links`);
}

/** An absolute link target as components under the root, or a refusal naming the path the model gave. */
function componentsOrOutside(root: string, realRoot: string, target: string, shown: string): string[] {
  try {
    return componentsOf(root, realRoot, target);
  } catch {
    throw outside(shown, root, `leads (through a link to ${target}) outside`);
  }
}
