// What a task's commands and tools see of this machine: the hidden paths (tether's own files, credential locations,
// `hidden`) and what is shown again on top of them (the task directory, writable paths, `expose`d paths), decided by
// the deepest layer, and which files in it other programs run or obey later (protected: changed only by a file tool
// that asks). The sandbox mounts these layers (backends/local/sandbox.ts); the file tools ask the same view before
// they open a path, so one list and one decision hold for every tool. Pure path arithmetic, no I/O. Worker-only.
import { dirname } from 'node:path';
import { protectedEntryOf, type ProtectedEntry } from '../common/protected-paths.js';

/** Why a path is hidden: what a tool's refusal names. */
export type HiddenWhy = 'tether' | 'credentials' | 'configured' | 'private-tmp';

export interface HiddenPath {
  /** Absolute and real (links resolved where it exists). */
  path: string;
  why: HiddenWhy;
}

/** One mount of the view: a hidden path, or a path shown again above a hidden one (read-write, or read-only). */
export type Layer = { kind: 'hide'; path: string; why: HiddenWhy } | { kind: 'show' | 'show-read-only'; path: string };

export const within = (path: string, dir: string): boolean =>
  dir === '/' || path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** Deeper layers decide; at the same path a layer shown again is mounted after the hiding, so it wins. */
const rank = (l: Layer): number => l.path.length * 2 + (l.kind === 'hide' ? 0 : 1);

/** The decision for one path: visible (undefined), hidden (by which path, why) or shown read-only. */
export type Sight = { hidden: HiddenPath } | { readOnly: string } | undefined;

/** The view for one task: its writable roots (the task directory first, then `writable` paths) applied. */
export class RootedView {
  /** Every layer that holds anything under or above the roots, shallowest first: the order they are mounted in. */
  readonly layers: readonly Layer[];

  constructor(
    readonly view: TaskView,
    readonly roots: readonly string[],
  ) {
    const hidden = view.hidden.filter((h) => h.path !== '/');
    const insideHidden = (p: string, strictly: boolean): boolean =>
      hidden.some((h) => within(p, h.path) && (!strictly || h.path !== p));
    const hides: Layer[] = hidden.map((h) => ({ kind: 'hide', ...h }));
    // A root inside a hidden directory is the task's own: shown again. So is an exposed path, read-only: inside a
    // hidden directory, and inside a root too (`--cwd ~` with ~/.aws exposed: readable, never changed by the run).
    const shows: Layer[] = roots.filter((r) => insideHidden(r, false)).map((path) => ({ kind: 'show', path }));
    const readOnly: Layer[] = view.exposed
      .filter((e) => insideHidden(e, true) || roots.some((r) => within(e, r)))
      .map((path) => ({ kind: 'show-read-only', path }));
    this.layers = [...hides, ...shows, ...readOnly].sort((a, b) => rank(a) - rank(b));
  }

  /** What the task sees at `path` (absolute, real). */
  sight(path: string): Sight {
    const l = decisive(this.layers, this.layers.length, path);
    if (!l) return undefined;
    if (l.kind === 'hide') return { hidden: { path: l.path, why: l.why } };
    return l.kind === 'show-read-only' ? { readOnly: l.path } : undefined;
  }

  /** Whether a command could write `path`: under a root, and neither hidden nor shown read-only. */
  writable(path: string): boolean {
    return this.roots.some((r) => within(path, r)) && this.sight(path) === undefined;
  }

  /**
   * The layers a mount table needs: those that change what their enclosing layer decided (a hidden path inside a
   * directory already hidden is hidden with it; a root not inside a hidden one is shown by its own bind already; an
   * exposed path is bound read-only unless a read-only layer already holds it).
   */
  mounts(): Layer[] {
    return this.layers.filter((l, i) => {
      const enclosing = decisive(this.layers, i, l.path);
      if (l.kind === 'hide') return enclosing?.kind !== 'hide';
      if (l.kind === 'show-read-only') return enclosing?.kind !== 'show-read-only';
      return enclosing?.kind === 'hide';
    });
  }

  /** Only the layers that can decide anything at or below `dir` (a walk of that directory asks these). */
  below(dir: string): RootedView {
    const near = (p: string): boolean => within(p, dir) || within(dir, p);
    return new RootedView(
      new TaskView(
        this.view.hidden.filter((h) => near(h.path)),
        this.view.exposed.filter(near),
        this.view.sandboxed,
        this.view.writable,
        this.view.protectedFiles,
      ),
      this.roots,
    );
  }

  /**
   * The protected entry covering `path` (absolute), judged as the file tools' gate judges it (protected-change.ts):
   * at the top of a project, where the deepest project whose entry matches decides; a project's top is a root, or a
   * directory `isRepository` says holds a `.git`. Above a root nothing is looked at (a path inside a root), so the
   * task directory's parents' repositories never decide for it.
   */
  protectedAt(path: string, isRepository: (dir: string) => boolean): ProtectedEntry | undefined {
    const entries = this.view.protectedFiles;
    if (entries.length === 0) return undefined;
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      const entry = protectedEntryOf(path.slice(dir === '/' ? 1 : dir.length + 1), entries);
      if (entry && isRepository(dir)) return entry;
      if (this.roots.includes(dir)) return entry;
      if (dir === '/') return undefined;
    }
  }

  /** Nothing at or below the directory this view was narrowed to is hidden or read-only. */
  get clear(): boolean {
    return this.layers.every((l) => l.kind === 'show');
  }
}

export class TaskView {
  constructor(
    readonly hidden: readonly HiddenPath[],
    /** `expose`d paths (real): read-only on top of a hidden directory that holds them. */
    readonly exposed: readonly string[] = [],
    /** Whether commands run in the sandbox: file tools then write only where commands can (the roots). */
    readonly sandboxed = false,
    /** terminal.local.sandbox.writable: writable roots besides the task directory. */
    readonly writable: readonly string[] = [],
    /** The protected paths in force (terminal.local.sandbox.protected applied): a file tool's write to one asks. */
    readonly protectedFiles: readonly ProtectedEntry[] = [],
  ) {}

  private last?: RootedView;

  /** The view of a task whose directory is `workdir` (a real path). */
  forTask(workdir: string): RootedView {
    const roots = [workdir, ...this.writable];
    if (this.last && this.last.roots.length === roots.length && this.last.roots.every((r, i) => r === roots[i]))
      return this.last;
    this.last = new RootedView(this, roots);
    return this.last;
  }
}

/** The deepest of the first `n` layers (sorted by rank) that holds `path`. */
function decisive(layers: readonly Layer[], n: number, path: string): Layer | undefined {
  for (let i = n - 1; i >= 0; i -= 1) if (within(path, layers[i]!.path)) return layers[i];
  return undefined;
}

/** The refusal a file tool gives for a hidden path (`shown`: the path as the model gave it). */
export function hiddenMessage(shown: string, h: HiddenPath): string {
  switch (h.why) {
    case 'tether':
      return `${shown} is hidden: it is tether's own (its home, configuration or keys), which no command or tool of a run can read or change`;
    case 'credentials':
      return `${shown} is hidden: it holds credentials (${h.path}), which no command or tool of a run can read or change; a person can list it in terminal.local.sandbox.expose`;
    case 'configured':
      return `${shown} is hidden by terminal.local.sandbox.hidden (${h.path}): no command or tool of a run can read or change it`;
    case 'private-tmp':
      return `${shown} is not the task's: its commands have a ${h.path} of their own, which the file tools do not reach; use a path in the working directory`;
  }
}
