// Git's loose-object format, written and read by tether itself (blobs, trees, commits): the checkpoint store is a
// bare git repository that `git` can inspect, but tether never runs git on it. Worker-only.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { read as readCallback } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { constants as zc, createDeflate, deflateSync, inflateSync } from 'node:zlib';

export type Oid = string;
export type ObjectType = 'blob' | 'tree' | 'commit';

/** The tree with no entries: how an empty directory is kept. */
export const EMPTY_TREE: Oid = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Git's tree entry modes: a file, an executable file, a symbolic link, a directory. */
export type TreeMode = '100644' | '100755' | '120000' | '40000';

export interface TreeEntry {
  /** The name's raw bytes: any byte but NUL and '/', newlines and invalid UTF-8 included. */
  name: Buffer;
  mode: TreeMode;
  oid: Oid;
}

/** Level 1: a checkpoint waits for this; level 6 (git's default) saves ~20% on text at several times the CPU. */
const LEVEL = 1;
/** Files larger than this are streamed (read, hashed and compressed in pieces) instead of read whole. */
const STREAM_FROM = 1 << 20;
const readAsync = promisify(readCallback);

/** The file changed size while it was being read: its content would be torn. */
export class ChangedWhileReading extends Error {}

function header(type: ObjectType, size: number): Buffer {
  return Buffer.from(`${type} ${size}\0`);
}

export function objectId(type: ObjectType, body: Buffer): Oid {
  return createHash('sha1').update(header(type, body.length)).update(body).digest('hex');
}

/** A tree entry being written: its name as latin1 text of its bytes (one character per byte). */
export interface NewTreeEntry {
  key: string;
  mode: TreeMode;
  oid: Oid;
}

/**
 * Git's order: names compared bytewise, a directory's as if it ended with '/'. Latin1 text compares by code unit,
 * which is by byte; one buffer is written, with no buffer per entry.
 */
export function encodeTree(entries: NewTreeEntry[]): Buffer {
  const sortKey = (e: NewTreeEntry): string => (e.mode === '40000' ? `${e.key}/` : e.key);
  const sorted = entries
    .map((e) => ({ e, k: sortKey(e) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.e);
  let size = 0;
  for (const e of sorted) size += e.mode.length + e.key.length + 22;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const e of sorted) {
    at += out.write(e.mode, at, 'latin1');
    out[at++] = 0x20;
    at += out.write(e.key, at, 'latin1');
    out[at++] = 0;
    at += out.write(e.oid, at, 'hex');
  }
  return out;
}

export function decodeTree(body: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  let i = 0;
  while (i < body.length) {
    const space = body.indexOf(0x20, i);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new Error('corrupt tree object');
    const mode = body.toString('latin1', i, space);
    out.push({
      mode: (mode === '040000' ? '40000' : mode) as TreeMode,
      name: Buffer.from(body.subarray(space + 1, nul)),
      oid: body.toString('hex', nul + 1, nul + 21),
    });
    i = nul + 21;
  }
  return out;
}

export interface CommitFields {
  tree: Oid;
  /** Seconds since the epoch. */
  time: number;
  message: string;
}

export function encodeCommit(c: CommitFields): Buffer {
  const who = `tether <tether@localhost> ${Math.floor(c.time)} +0000`;
  return Buffer.from(`tree ${c.tree}\nauthor ${who}\ncommitter ${who}\n\n${c.message}`);
}

export function decodeCommit(body: Buffer): CommitFields {
  const text = body.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const tree = /^tree ([0-9a-f]{40})$/m.exec(head)?.[1];
  const time = Number(/^committer .* (\d+) [+-]\d{4}$/m.exec(head)?.[1] ?? NaN);
  if (!tree || !Number.isFinite(time)) throw new Error('corrupt commit object');
  return { tree, time, message: split < 0 ? '' : text.slice(split + 2) };
}

/** The objects directory of a git repository: loose objects only (nothing here packs them). */
export class ObjectStore {
  constructor(readonly dir: string) {}

  private path(oid: Oid): string {
    return join(this.dir, oid.slice(0, 2), oid.slice(2));
  }

  /**
   * Whether the object is stored. A present one is freshened (its time set to now), as git does, so that pruning,
   * which removes only unreferenced objects older than its grace period, cannot take one a new checkpoint is about
   * to reference.
   */
  has(oid: Oid): boolean {
    const p = this.path(oid);
    if (!existsSync(p)) return false;
    try {
      const now = new Date();
      utimesSync(p, now, now);
      return true;
    } catch {
      return false; // removed meanwhile
    }
  }

  /** Stores an object (unless it is already there) and returns its id. */
  put(type: ObjectType, body: Buffer): Oid {
    const oid = objectId(type, body);
    if (this.has(oid)) return oid;
    const tmp = this.tempPath();
    const fd = openSync(tmp, 'wx', 0o444);
    try {
      writeSync(fd, deflateSync(Buffer.concat([header(type, body.length), body]), { level: LEVEL }));
    } finally {
      closeSync(fd);
    }
    this.place(tmp, oid);
    return oid;
  }

  /**
   * A blob from an open file of `size` bytes: read whole when small, streamed when large. Throws
   * ChangedWhileReading when the file did not hold exactly `size` bytes. `write` false only computes the id.
   */
  async putFile(fd: number, size: number, write = true): Promise<Oid> {
    if (size <= STREAM_FROM) {
      const body = Buffer.allocUnsafe(size);
      let pos = 0;
      while (pos < size) {
        const n = (await readAsync(fd, body, pos, size - pos, pos)).bytesRead;
        if (n === 0) break;
        pos += n;
      }
      const more = (await readAsync(fd, Buffer.alloc(1), 0, 1, size)).bytesRead;
      if (pos !== size || more !== 0) throw new ChangedWhileReading();
      return write ? this.put('blob', body) : objectId('blob', body);
    }
    return this.streamBlob(fd, size, write);
  }

  private async streamBlob(fd: number, size: number, write: boolean): Promise<Oid> {
    const hash = createHash('sha1');
    const head = header('blob', size);
    hash.update(head);
    const tmp = write ? this.tempPath() : undefined;
    const out = tmp === undefined ? undefined : openSync(tmp, 'wx', 0o444);
    const deflate = out === undefined ? undefined : createDeflate({ level: LEVEL, flush: zc.Z_NO_FLUSH });
    const written = new Promise<void>((resolve, reject) => {
      if (!deflate || out === undefined) return resolve();
      deflate.on('data', (c: Buffer) => writeSync(out, c));
      deflate.on('end', () => resolve());
      deflate.on('error', reject);
    });
    try {
      deflate?.write(head);
      let pos = 0;
      while (pos < size) {
        const chunk = Buffer.allocUnsafe(Math.min(STREAM_FROM, size - pos));
        const n = (await readAsync(fd, chunk, 0, chunk.length, pos)).bytesRead;
        if (n === 0) break;
        const piece = chunk.subarray(0, n);
        hash.update(piece);
        if (deflate && !deflate.write(piece)) await new Promise((r) => deflate.once('drain', r));
        pos += n;
      }
      const more = (await readAsync(fd, Buffer.alloc(1), 0, 1, size)).bytesRead;
      deflate?.end();
      await written;
      if (pos !== size || more !== 0) throw new ChangedWhileReading();
    } catch (err) {
      if (tmp) rmSync(tmp, { force: true });
      throw err;
    } finally {
      if (out !== undefined) closeSync(out);
    }
    const oid = hash.digest('hex');
    if (tmp) {
      if (this.has(oid)) rmSync(tmp, { force: true });
      else this.place(tmp, oid);
    }
    return oid;
  }

  read(oid: Oid): { type: ObjectType; body: Buffer } {
    let raw: Buffer;
    try {
      raw = inflateSync(readFileSync(this.path(oid)));
    } catch (err) {
      throw new Error(
        `checkpoint object ${oid} is missing or unreadable (${(err as NodeJS.ErrnoException).code ?? 'corrupt'})`,
      );
    }
    const nul = raw.indexOf(0);
    const [type, size] = raw.toString('latin1', 0, nul).split(' ');
    const body = raw.subarray(nul + 1);
    if (Number(size) !== body.length) throw new Error(`checkpoint object ${oid} is corrupt`);
    return { type: type as ObjectType, body };
  }

  readTree(oid: Oid): TreeEntry[] {
    if (oid === EMPTY_TREE) return [];
    const o = this.read(oid);
    if (o.type !== 'tree') throw new Error(`checkpoint object ${oid} is a ${o.type}, not a tree`);
    return decodeTree(o.body);
  }

  private tempPath(): string {
    return join(this.dir, `tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  }

  /** Moves a finished temporary file to the object's place (a rename: readers never see half an object). */
  private place(tmp: string, oid: Oid): void {
    const sub = join(this.dir, oid.slice(0, 2));
    try {
      mkdirSync(sub);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    renameSync(tmp, this.path(oid));
  }
}
