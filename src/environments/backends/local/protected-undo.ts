// How the protected files' guard (protected-guard.ts) undoes what a command made at a protected path, and tells an
// approved file tool's write from a command's: every name looked up in a directory held open (a command may swap a
// directory for a link at any time), nothing followed, and a large tree moved out in slices so that the worker keeps
// answering. Worker-only (reads and changes the task directory).
import { randomBytes } from 'node:crypto';
import { closeSync, readSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import {
  at,
  closeDir,
  lstatAt,
  mkdirAt,
  openDirAt,
  openFileAt,
  openRoot,
  readdirAt,
  readlinkAt,
  rmdirAt,
  symlinkAt,
  unlinkAt,
  writeFileAt,
  type Dir,
} from '../../../fs/secure-fs.js';
import { contentDigest, wasApproved } from '../../../approval/protected-ledger.js';
import type { ProtectedFound } from './protected-files.js';

/** Opens the directory holding `rel` below `top`, never through a link (a command may have put one on the way). */
export function openParent(top: string, rel: string): Dir {
  let dir = openRoot(top);
  for (const part of rel.split('/').slice(0, -1)) {
    try {
      const next = openDirAt(dir, Buffer.from(part));
      closeDir(dir);
      dir = next;
    } catch (err) {
      closeDir(dir);
      throw err;
    }
  }
  return dir;
}

/** Reads a descriptor whole (up to `max` bytes). */
function readAll(fd: number, size: number, max: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, Math.min(size, max)));
  let pos = 0;
  while (pos < buf.length) {
    const got = readSync(fd, buf, pos, buf.length - pos, pos);
    if (got === 0) break;
    pos += got;
  }
  return buf.subarray(0, pos);
}

/** What is copied out of an undone entry at most (the rest is removed uncopied). */
const MAX_COPIED_ENTRIES = 10_000;
const MAX_COPIED_BYTES = 64 * 1024 * 1024;
/** How long one slice may hold the worker's event loop before it answers anything else. */
const SLICE_MS = 10;

type Frame = { dir: Dir; name: Buffer; to?: Dir; sub?: Dir; left?: Buffer[] };

/**
 * Copies an entry (files, links as links, directories whole, within the bounds above) into a directory of
 * TETHER_HOME and removes it: both sides through directory descriptors, depth first without recursion, so a tree of
 * any depth costs its size once. Owns the descriptors it is given.
 */
class MoveOut {
  private copied = 0;
  private bytes = 0;
  skipped = false;
  private readonly stack: Frame[];

  constructor(
    private readonly parent: Dir,
    name: Buffer,
    private readonly into: Dir,
    /** Its name in `into`. */
    keptAs: Buffer,
  ) {
    this.stack = [{ dir: parent, name, to: this.copy(parent, name, into, keptAs) }];
  }

  /** Copies one entry into `to` (as `as`); a directory is made there and returned open, for its entries. */
  private copy(dir: Dir, entry: Buffer, to: Dir | undefined, as = entry): Dir | undefined {
    if (!to || this.copied >= MAX_COPIED_ENTRIES || this.bytes >= MAX_COPIED_BYTES) {
      this.skipped = true;
      return undefined;
    }
    this.copied += 1;
    try {
      const st = lstatAt(dir, entry);
      if (!st) return undefined;
      if (st.isDirectory()) {
        mkdirAt(to, as, 0o700);
        return openDirAt(to, as);
      }
      if (st.isSymbolicLink()) symlinkAt(to, as, readlinkAt(dir, entry));
      else if (st.isFile()) {
        const f = openFileAt(dir, entry);
        if (!f) return undefined;
        try {
          const data = readAll(f.fd, f.stat.size, MAX_COPIED_BYTES - this.bytes);
          this.bytes += data.length;
          if (data.length < f.stat.size) this.skipped = true;
          writeFileAt(to, as, data, f.stat.mode);
        } finally {
          closeSync(f.fd);
        }
      }
    } catch {
      this.skipped = true; // what could not be copied is removed all the same
    }
    return undefined;
  }

  /** Handles entries until `ms` have passed; true when all is done (and the descriptors are closed). */
  step(ms: number): boolean {
    const until = Date.now() + ms;
    while (this.stack.length > 0 && Date.now() < until) {
      const top = this.stack.at(-1)!;
      try {
        if (!top.sub) {
          const st = lstatAt(top.dir, top.name);
          if (!st?.isDirectory()) {
            if (st) unlinkAt(top.dir, top.name);
            this.stack.pop();
            continue;
          }
          top.sub = openDirAt(top.dir, top.name);
          top.left = readdirAt(top.sub);
        }
        const next = top.left!.pop();
        if (next) {
          this.stack.push({ dir: top.sub, name: next, to: this.copy(top.sub, next, top.to) });
          continue;
        }
        rmdirAt(top.dir, top.name);
      } catch {
        // Gone meanwhile, or changed under us (a running process): what is left of it stays out of the way.
        this.skipped = true;
      }
      if (top.sub) closeDir(top.sub);
      if (top.to) closeDir(top.to);
      this.stack.pop();
    }
    if (this.stack.length > 0) return false;
    closeDir(this.parent);
    closeDir(this.into);
    return true;
  }
}

/**
 * Takes `name` out of `parent` at once (renamed beside itself to a name nothing reads: it stays inside the bind mount
 * a running command may be in, whose `..` must not lead out of the sandbox), then copies it into `into` (under its
 * own name) and removes it, a slice at a time. Owns both descriptors. Returns the name it has until it is gone.
 */
export function moveOut(parent: Dir, name: Buffer, into: Dir): string {
  const aside = `.tether-undone-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(at(parent, name), at(parent, Buffer.from(aside)));
  } catch (err) {
    closeDir(parent);
    closeDir(into);
    throw err;
  }
  const job = new MoveOut(parent, Buffer.from(aside), into, name);
  const more = (): void => {
    if (!job.step(SLICE_MS)) setImmediate(more);
  };
  more();
  return aside;
}

/** The digests of a file, or of every file in a directory; undefined when anything there is not a plain file. */
function digestOf(dir: Dir, name: Buffer): string | undefined {
  const f = openFileAt(dir, name);
  if (!f) return undefined;
  try {
    if (f.stat.size > MAX_COPIED_BYTES) return undefined;
    return contentDigest(readAll(f.fd, f.stat.size, f.stat.size));
  } finally {
    closeSync(f.fd);
  }
}

/**
 * Every file of the entry is one a file tool wrote with a person's approval (by path and digest, file by file; at
 * most 64 of them, and no links).
 */
export function approvedByFileTool(f: ProtectedFound): boolean {
  if (f.type !== 'file' && f.type !== 'dir') return false;
  let dir: Dir | undefined;
  try {
    dir = openParent(f.top, f.rel);
    const todo: { dir: Dir; name: Buffer; path: string }[] = [
      { dir, name: Buffer.from(f.rel.split('/').at(-1)!), path: join(f.top, f.rel) },
    ];
    const opened: Dir[] = [];
    try {
      for (let seen = 0; todo.length > 0; seen += 1) {
        const e = todo.pop()!;
        const st = lstatAt(e.dir, e.name);
        if (!st || seen > 64) return false;
        if (st.isFile()) {
          const digest = digestOf(e.dir, e.name);
          if (!digest || !wasApproved(e.path, digest)) return false;
        } else if (st.isDirectory()) {
          const sub = openDirAt(e.dir, e.name);
          opened.push(sub);
          for (const c of readdirAt(sub)) todo.push({ dir: sub, name: c, path: join(e.path, c.toString()) });
        } else return false;
      }
      return true;
    } finally {
      for (const o of opened) closeDir(o);
    }
  } catch {
    return false;
  } finally {
    if (dir) closeDir(dir);
  }
}
