// What holds protected files the sandbox cannot hold by a mount: a path that did not exist when the task's sandbox
// was set up (bwrap would have to make it in the person's project to mount over it), and a link at a protected path
// (a mount lands on what it points to, and the link itself can be renamed). After each command, and every few
// seconds while a background process runs, the protected paths at each project top are compared with what the task
// was given: one that appeared, or was replaced, while the task's processes ran is moved out of the project (into
// TETHER_HOME/protected-undone), and a link is put back. A change a file tool made with a person's approval is kept
// (protected-ledger.ts); so is any change made while none of the task's processes ran (a person, a file tool).
// Worker-only (reads and changes the task directory, through directory descriptors).
import { mkdirSync, readSync, closeSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROTECTED_WHY } from '../../../common/protected-paths.js';
import { tetherHome } from '../../../config/home.js';
import {
  closeDir,
  lstatAt,
  openDirAt,
  openFileAt,
  openRoot,
  readdirAt,
  readlinkAt,
  rmdirAt,
  symlinkAt,
  unlinkAt,
  type Dir,
} from '../../../checkpoints/secure-fs.js';
import { contentDigest, wasApproved } from '../../protected-ledger.js';
import { findProtected, type ProtectedFound } from './protected-files.js';
import type { SandboxSpec } from './settings.js';
import type { SandboxState } from './sandbox.js';

/** How often a task with a background process running is looked at. */
const BACKGROUND_CHECK_MS = 2_000;
/** A file bigger than this is not read to see whether a file tool wrote it (it is taken for a command's). */
const MAX_LEDGER_BYTES = 4 * 1024 * 1024;

const pathOf = (f: ProtectedFound): string => join(f.top, f.rel);

/** Opens the directory holding `rel` below `top`, never through a link (a command may have put one on the way). */
function openParent(top: string, rel: string): Dir {
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

/**
 * Copies an entry out (files, links as links, directories whole), then removes it. Never a rename: a directory
 * renamed out of the bind mount a running command is in would let that command's `..` climb out of the sandbox.
 */
function copyOut(dir: Dir, name: Buffer, dest: string): void {
  const st = lstatAt(dir, name);
  if (!st) return;
  if (st.isDirectory()) {
    mkdirSync(dest, { recursive: true });
    const sub = openDirAt(dir, name);
    try {
      for (const child of readdirAt(sub)) copyOut(sub, child, join(dest, child.toString()));
    } finally {
      closeDir(sub);
    }
    rmdirAt(dir, name);
    return;
  }
  if (st.isSymbolicLink()) symlinkSync(readlinkAt(dir, name), dest);
  else if (st.isFile()) {
    const f = openFileAt(dir, name);
    if (f) {
      try {
        const buf = Buffer.alloc(Math.min(f.stat.size, 256 * 1024 * 1024));
        let pos = 0;
        while (pos < buf.length) {
          const n = readSync(f.fd, buf, pos, buf.length - pos, pos);
          if (n === 0) break;
          pos += n;
        }
        writeFileSync(dest, buf.subarray(0, pos), { mode: f.stat.mode & 0o777 });
      } finally {
        closeSync(f.fd);
      }
    }
  }
  unlinkAt(dir, name);
}

/** The digests of a file, or of every file in a directory; undefined when anything there is not a plain file. */
function digests(dir: Dir, name: Buffer, out: string[] = []): string[] | undefined {
  const st = lstatAt(dir, name);
  if (!st || out.length > 64) return undefined;
  if (st.isDirectory()) {
    const sub = openDirAt(dir, name);
    try {
      for (const child of readdirAt(sub)) if (!digests(sub, child, out)) return undefined;
    } finally {
      closeDir(sub);
    }
    return out;
  }
  if (!st.isFile() || st.size > MAX_LEDGER_BYTES) return undefined;
  const f = openFileAt(dir, name);
  if (!f) return undefined;
  try {
    const buf = Buffer.alloc(f.stat.size);
    let pos = 0;
    while (pos < buf.length) {
      const n = readSync(f.fd, buf, pos, buf.length - pos, pos);
      if (n === 0) break;
      pos += n;
    }
    out.push(contentDigest(buf.subarray(0, pos)));
    return out;
  } finally {
    closeSync(f.fd);
  }
}

/** Every file of the entry is one a file tool wrote with approval (paths and digests, file by file). */
function approvedByFileTool(f: ProtectedFound): boolean {
  if (f.type !== 'file' && f.type !== 'dir') return false;
  try {
    const dir = openParent(f.top, f.rel);
    try {
      const name = Buffer.from(f.rel.split('/').at(-1)!);
      if (f.type === 'file') {
        const d = digests(dir, name);
        return d !== undefined && d.length === 1 && wasApproved(pathOf(f), d[0]!);
      }
      return approvedTree(dir, name, pathOf(f));
    } finally {
      closeDir(dir);
    }
  } catch {
    return false;
  }
}

function approvedTree(dir: Dir, name: Buffer, path: string): boolean {
  const st = lstatAt(dir, name);
  if (!st) return false;
  if (st.isFile()) {
    const d = digests(dir, name);
    return d !== undefined && wasApproved(path, d[0]!);
  }
  if (!st.isDirectory()) return false;
  const sub = openDirAt(dir, name);
  try {
    return readdirAt(sub).every((c) => approvedTree(sub, c, join(path, c.toString())));
  } finally {
    closeDir(sub);
  }
}

export class ProtectedGuard {
  /** What the task was given: each protected path as it was when accepted. */
  private readonly accepted = new Map<string, ProtectedFound>();
  private tops: string[] = [];
  private foreground = 0;
  /** The task's own processes beside its shell (background, PTY, execute_code) running now. */
  private readonly others = new Set<unknown>();
  /** One of them ran since the last look. */
  private othersRan = false;
  /** What a look between commands did, told with the next command's result. */
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly spec: SandboxSpec,
    private readonly task: string,
    private readonly log: (msg: string) => void = () => undefined,
  ) {}

  /**
   * The sandbox looked at the machine (a shell or process is being set up): its tops are the ones looked at from now
   * on, and what is found at a top seen for the first time (a repository just made) is what the task is given there.
   */
  observe(state: SandboxState): void {
    const fresh = new Set(state.tops.filter((t) => !this.tops.includes(t)));
    this.tops = state.tops;
    for (const f of state.found) if (fresh.has(f.top) && !this.accepted.has(pathOf(f))) this.accepted.set(pathOf(f), f);
  }

  /** Before a foreground command: what a background process (or nobody of the task) did since the last look. */
  commandStarting(): void {
    this.pending.push(...this.look(this.othersBusy()));
    this.foreground += 1;
  }

  /** After a foreground command ended: what it (or a background process meanwhile) created is undone. */
  commandEnded(): string[] {
    const notes = [...this.pending, ...this.look(true)];
    this.pending = [];
    this.foreground = Math.max(0, this.foreground - 1);
    return notes;
  }

  /** A process of the task beside its shell started; looked at every few seconds while one runs. */
  started(proc: unknown): void {
    this.others.add(proc);
    this.othersRan = true;
    this.timer ??= setInterval(() => {
      if (this.foreground > 0) return;
      this.pending.push(...this.look(true));
      if (this.others.size === 0) this.stopTimer();
    }, BACKGROUND_CHECK_MS).unref();
  }

  ended(proc: unknown): void {
    this.others.delete(proc);
  }

  private othersBusy(): boolean {
    return this.others.size > 0 || this.othersRan;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The environment closes: a last look (its background processes are gone), then nothing more. */
  close(): void {
    this.stopTimer();
    this.look(this.othersBusy() || this.foreground > 0);
  }

  /**
   * Compares the protected paths now with what the task was given. While the task's processes ran (`busy`) a new or
   * replaced one is undone (unless a file tool wrote it with approval) and a removed link put back; otherwise the
   * change is someone else's and is taken as given. Returns a line per undone change.
   */
  private look(busy: boolean): string[] {
    if (this.others.size === 0) this.othersRan = false;
    const notes: string[] = [];
    const now = findProtected(this.tops, this.spec.protected ?? []);
    const seen = new Set<string>();
    for (const f of now) {
      const path = pathOf(f);
      seen.add(path);
      const was = this.accepted.get(path);
      if (was && was.id === f.id && was.type === f.type && was.link === f.link) continue;
      if (!busy || approvedByFileTool(f)) {
        this.accepted.set(path, f);
        continue;
      }
      notes.push(this.undo(f, was));
    }
    for (const [path, was] of this.accepted) {
      if (seen.has(path)) continue;
      if (busy && was.type === 'link') notes.push(this.restoreLink(was));
      else this.accepted.delete(path);
    }
    for (const n of notes) this.log(n);
    return notes;
  }

  private undo(f: ProtectedFound, was: ProtectedFound | undefined): string {
    const why = `${f.rel} is protected (${PROTECTED_WHY[f.entry.kind]})`;
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const dest = join(tetherHome(), 'protected-undone', `${stamp}-${this.task.replace(/[^\w.-]+/g, '-')}`, f.rel);
    try {
      mkdirSync(dirname(dest), { recursive: true });
      const dir = openParent(f.top, f.rel);
      try {
        copyOut(dir, Buffer.from(f.rel.split('/').at(-1)!), dest);
        if (was?.type === 'link') symlinkAt(dir, Buffer.from(f.rel.split('/').at(-1)!), Buffer.from(was.link!));
      } finally {
        closeDir(dir);
      }
    } catch (err) {
      return `${why}, and a command ${was ? 'replaced' : 'created'} it, which could not be undone (${(err as Error).message}): look at ${pathOf(f)} before running anything that reads it`;
    }
    return (
      `${why}: a command ${was ? 'replaced' : 'created'} it, so it was moved out of the project (to ${dest})` +
      `${was?.type === 'link' ? ' and the link put back' : ''}; write it with write_file or patch, which show a person the change and ask`
    );
  }

  private restoreLink(was: ProtectedFound): string {
    const why = `${was.rel} is protected (${PROTECTED_WHY[was.entry.kind]})`;
    try {
      const dir = openParent(was.top, was.rel);
      try {
        symlinkAt(dir, Buffer.from(was.rel.split('/').at(-1)!), Buffer.from(was.link!));
      } finally {
        closeDir(dir);
      }
    } catch (err) {
      return `${why}: a command removed the link, which could not be put back (${(err as Error).message})`;
    }
    return `${why}: a command removed the link, so it was put back`;
  }

  /**
   * When a failed command's output shows a write refused at a protected path (or a directory holding one): why,
   * and what can change it. Undefined when it names none.
   */
  refusalNote(output: string): { note?: string; other: boolean } {
    const lines = output.split('\n').filter((l) => /Read-only file system|Device or resource busy/i.test(l));
    if (lines.length === 0) return { other: false };
    const named = new Map<string, ProtectedFound>();
    for (const f of this.accepted.values()) {
      const parts = f.rel.split('/');
      for (let i = 1; i <= parts.length; i += 1) {
        const rel = parts.slice(0, i).join('/');
        named.set(rel, f);
        named.set(join(f.top, rel), f);
      }
    }
    let hit: ProtectedFound | undefined;
    let other = false;
    for (const line of lines) {
      const f = [...named].find(([n]) => mentions(line, n))?.[1];
      if (f) hit ??= f;
      else if (/Read-only file system/i.test(line)) other = true;
    }
    if (!hit) return { other };
    return {
      other,
      note:
        `${hit.rel} is protected (${PROTECTED_WHY[hit.entry.kind]}): commands cannot change or create the files other programs run or obey later, ` +
        'nor move the directories that hold them (terminal.local.sandbox.protected); write it with write_file or patch, which show a person the change and ask',
    };
  }
}

/**
 * `name` (a path relative to a top, or absolute) appears in the line as a whole path, or the start of one: after a
 * space, a quote, a colon or `./`, and followed by the end of a name (not `AGENTS.md.bak`, not `/etc/docs`).
 */
function mentions(line: string, name: string): boolean {
  for (let i = line.indexOf(name); i >= 0; i = line.indexOf(name, i + 1)) {
    const before = line.slice(Math.max(0, i - 2), i);
    const after = line[i + name.length];
    const starts = name.startsWith('/') || before === '' || /[\s'"`:(]$/.test(before) || before === './';
    if (starts && (after === undefined || /[\s'"`/:),]/.test(after))) return true;
  }
  return false;
}
