// What holds protected files the sandbox cannot hold by a mount: a path that did not exist when the task's sandbox
// was set up (bwrap would have to make it in the person's project to mount over it), and a link at a protected path
// (a mount lands on what it points to, and the link itself can be renamed). After each command, and every few
// seconds while a background process runs, the protected paths at each project top are compared with what the task
// was given: one that appeared, or was replaced, while the task's processes ran is moved out of the project (into
// TETHER_HOME/protected-undone), and a link is put back. A change a file tool made with a person's approval is kept
// (protected-ledger.ts); so is any change made while none of the task's processes ran (a person, a file tool).
// Worker-only (reads and changes the task directory, through directory descriptors).
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { PROTECTED_WHY } from '../../../common/protected-paths.js';
import { tetherHome } from '../../../config/home.js';
import { closeDir, openRoot, symlinkAt, type Dir } from '../../../fs/secure-fs.js';
import { approvedByFileTool, moveOut, openParent } from './protected-undo.js';
import { findProtected, type ProtectedFound } from './protected-files.js';
import type { SandboxSpec } from './settings.js';
import { protectedEntries, type SandboxState } from './sandbox.js';

/** How often a task with a background process running is looked at. */
const BACKGROUND_CHECK_MS = 2_000;

const pathOf = (f: ProtectedFound): string => join(f.top, f.rel);

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
    /** The task directory: paths are named relative to it. */
    private readonly workdir: string,
    private readonly task: string,
    private readonly log: (msg: string) => void = () => undefined,
  ) {}

  /** A found path as the model and a person name it: relative to the task directory when inside it. */
  private shown(f: ProtectedFound): string {
    const path = pathOf(f);
    const rel = relative(this.workdir, path);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  }

  /**
   * The sandbox looked at the machine (a shell or process is being set up): its tops are the ones looked at from now
   * on, and what is found at a top seen for the first time (a repository just made) is what the task is given there.
   */
  observe(state: SandboxState): void {
    const fresh = new Set(state.tops.filter((t) => !this.tops.includes(t)));
    this.tops = state.tops;
    for (const f of state.found) if (fresh.has(f.top) && !this.accepted.has(pathOf(f))) this.accepted.set(pathOf(f), f);
  }

  /**
   * Before a foreground command, with the sandbox's look at the machine now: what a background process (or nobody
   * of the task) did since the last look. Returns whether anything was undone (the look is then out of date).
   */
  commandStarting(state: SandboxState): boolean {
    this.observe(state);
    const notes = this.look(this.othersBusy(), state.found);
    this.pending.push(...notes);
    this.foreground += 1;
    return notes.length > 0;
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
  private look(
    busy: boolean,
    now = findProtected(this.tops, protectedEntries(this.spec, [this.workdir, ...this.spec.writable])),
  ): string[] {
    if (this.others.size === 0) this.othersRan = false;
    const notes: string[] = [];
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
    const why = `${this.shown(f)} is protected (${PROTECTED_WHY[f.entry.kind]})`;
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const dest = join(
      tetherHome(),
      'protected-undone',
      `${stamp}-${this.task.replace(/[^\w.-]+/g, '-')}`,
      this.shown(f),
    );
    const name = Buffer.from(f.rel.split('/').at(-1)!);
    try {
      mkdirSync(dirname(dest), { recursive: true });
      const into = openRoot(dirname(dest));
      let dir: Dir;
      try {
        dir = openParent(f.top, f.rel);
      } catch (err) {
        closeDir(into);
        throw err;
      }
      // The link is put back through a descriptor of its own: moveOut owns (and closes) `dir` as it goes.
      const again = was?.type === 'link' ? openParent(f.top, f.rel) : undefined;
      moveOut(dir, name, into);
      if (again) {
        try {
          symlinkAt(again, name, Buffer.from(was!.link!));
        } finally {
          closeDir(again);
        }
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
    const why = `${this.shown(was)} is protected (${PROTECTED_WHY[was.entry.kind]})`;
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
      // Each directory on the way (`mv .github x` is refused too), by its path below the top, below the task
      // directory and absolute.
      const parts = f.rel.split('/');
      for (let i = 1; i <= parts.length; i += 1) {
        const at = { ...f, rel: parts.slice(0, i).join('/') };
        for (const name of [at.rel, this.shown(at), pathOf(at)]) named.set(name, f);
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
        `${this.shown(hit)} is protected (${PROTECTED_WHY[hit.entry.kind]}): commands cannot change or create the files other programs run or obey later, ` +
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
