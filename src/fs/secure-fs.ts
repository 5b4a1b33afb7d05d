// File operations inside a task directory that no symbolic link or race can lead out of: every name is resolved
// in a directory held open (on Linux through /proc/self/fd/N/NAME, which pins the directory itself) and its last
// component is never followed; writes go to a new file that is renamed into place. Worker-only.
// (src/files/beneath.ts is the file tools' counterpart: it resolves a model's path, links beneath the root included;
// checkpoints follow no link at all, keep names as raw bytes, and stay synchronous for the walk's speed.)
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants as C,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { RACE_FREE } from './beneath.js';

/**
 * Linux: a name is looked up in the directory an open descriptor holds, wherever that directory is now and whatever
 * its path has become. Elsewhere only the last component is protected (O_NOFOLLOW); see docs/checkpoints.md.
 */
export const PINNED = RACE_FREE;

const SLASH = Buffer.from('/');

/** An open directory of the task. */
export interface Dir {
  fd: number;
  /** Its path when opened (used only where descriptors cannot pin it). */
  path: Buffer;
}

/** The path that names `name` inside `dir` (the directory itself when `name` is undefined). */
export function at(dir: Dir, name?: Buffer): Buffer {
  const base = PINNED ? Buffer.from(`/proc/self/fd/${dir.fd}`) : dir.path;
  return name === undefined ? base : Buffer.concat([base, SLASH, name]);
}

/** A name read from a directory or given by a person: one component, never '.', '..' or empty. */
export function checkName(name: Buffer): void {
  if (
    name.length === 0 ||
    name.includes(0x2f) ||
    name.includes(0) ||
    name.equals(Buffer.from('.')) ||
    name.equals(Buffer.from('..'))
  )
    throw new Error(`'${name.toString()}' is not a file name`);
}

/** Opens the task directory itself; its last component must not be a symbolic link. */
export function openRoot(path: string): Dir {
  const fd = openSync(path, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
  return { fd, path: Buffer.from(path) };
}

/** A subdirectory, refusing a symbolic link in its place (ELOOP or ENOTDIR). */
export function openDirAt(dir: Dir, name: Buffer): Dir {
  checkName(name);
  const fd = openSync(at(dir, name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
  return { fd, path: Buffer.concat([dir.path, SLASH, name]) };
}

export function closeDir(dir: Dir): void {
  try {
    closeSync(dir.fd);
  } catch {
    // already closed
  }
}

/**
 * A regular file for reading, with its status from the descriptor: a symbolic link, a FIFO (O_NONBLOCK: opening
 * one never waits for a writer) or a device put in its place is refused, undefined.
 */
export function openFileAt(dir: Dir, name: Buffer): { fd: number; stat: Stats } | undefined {
  checkName(name);
  let fd: number;
  try {
    fd = openSync(at(dir, name), C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch {
    return undefined;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    return undefined;
  }
  return { fd, stat };
}

export function readdirAt(dir: Dir): Buffer[] {
  return readdirSync(at(dir), { encoding: 'buffer' });
}

export function lstatAt(dir: Dir, name: Buffer): Stats | undefined {
  checkName(name);
  return lstatSync(at(dir, name), { throwIfNoEntry: false });
}

export function readlinkAt(dir: Dir, name: Buffer): Buffer {
  checkName(name);
  return readlinkSync(at(dir, name), { encoding: 'buffer' });
}

function tempName(): Buffer {
  return Buffer.from(`.tether-restore-${randomBytes(6).toString('hex')}`);
}

/**
 * Puts a file with exactly these bytes and permission bits at `name`, replacing whatever entry is there (a link is
 * replaced, never written through; a hard link's other names keep their content).
 */
export function writeFileAt(dir: Dir, name: Buffer, data: Buffer, mode: number): void {
  checkName(name);
  const tmp = tempName();
  const fd = openSync(at(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
  try {
    let pos = 0;
    while (pos < data.length) pos += writeSync(fd, data, pos, data.length - pos);
    fchmodSync(fd, mode & 0o777);
  } catch (err) {
    closeSync(fd);
    unlinkSync(at(dir, tmp));
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(at(dir, tmp), at(dir, name));
  } catch (err) {
    unlinkSync(at(dir, tmp));
    throw err;
  }
}

/** Puts a symbolic link with exactly this target at `name`, replacing the entry there. */
export function symlinkAt(dir: Dir, name: Buffer, target: Buffer): void {
  checkName(name);
  const tmp = tempName();
  symlinkSync(target, at(dir, tmp));
  try {
    renameSync(at(dir, tmp), at(dir, name));
  } catch (err) {
    unlinkSync(at(dir, tmp));
    throw err;
  }
}

/** Makes a directory (never through a link: an existing entry fails with EEXIST) and gives it `mode` exactly. */
export function mkdirAt(dir: Dir, name: Buffer, mode: number): void {
  checkName(name);
  mkdirSync(at(dir, name), 0o700);
  setDirMode(dir, name, mode);
}

/** Sets a directory's permission bits through its descriptor (chmod by name would follow a link). */
export function setDirMode(dir: Dir, name: Buffer, mode: number): void {
  const sub = openDirAt(dir, name);
  try {
    fchmodSync(sub.fd, mode & 0o777);
  } finally {
    closeDir(sub);
  }
}

/** Removes a file or link (never what a link points to). */
export function unlinkAt(dir: Dir, name: Buffer): void {
  checkName(name);
  unlinkSync(at(dir, name));
}

/** Removes an empty directory. */
export function rmdirAt(dir: Dir, name: Buffer): void {
  checkName(name);
  rmdirSync(at(dir, name));
}
