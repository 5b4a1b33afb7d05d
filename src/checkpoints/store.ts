// The checkpoint store: one bare git repository under TETHER_HOME/checkpoints, shared by every run and task
// directory (a file stored once however many checkpoints hold it), with one ref per checkpoint. Worker-only.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, tetherHome } from '../config/home.js';
import { decodeCommit, encodeCommit, ObjectStore, type Oid } from './git-objects.js';
import { decodeMeta, encodeMeta, type CheckpointMeta } from './meta.js';

/** One checkpoint as the store lists it. */
export interface Checkpoint {
  /** The commit's id (40 hex digits; shown shortened). */
  id: Oid;
  /** The directory tree it holds. */
  tree: Oid;
  /** When it was taken, in seconds since the epoch. */
  time: number;
  meta: CheckpointMeta;
  /** Its ref's file, relative to the store. */
  ref: string;
}

const RUNS = join('refs', 'tether', 'runs');
const GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n\tauto = 0\n';

const key = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** A name for a file that is then renamed over its target: readers see the old or the new whole, never half. */
function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export class CheckpointStore {
  readonly root: string;
  readonly objects: ObjectStore;

  constructor(home: string = tetherHome()) {
    this.root = join(home, 'checkpoints');
    this.objects = new ObjectStore(join(this.root, 'objects'));
  }

  /**
   * Makes the repository on first use (git can open it: `git --git-dir TETHER_HOME/checkpoints log ...`). True when
   * it was made now: a store removed while the worker ran holds none of the objects the worker knew of.
   */
  ensure(): boolean {
    if (existsSync(join(this.root, 'HEAD')) && existsSync(this.objects.dir)) return false;
    makeDirs(join(this.root, 'objects'));
    makeDirs(join(this.root, 'refs', 'heads'));
    makeDirs(join(this.root, RUNS));
    makeDirs(join(this.root, 'tether', 'scans'));
    writeFileSync(join(this.root, 'config'), GIT_CONFIG);
    writeAtomically(join(this.root, 'HEAD'), 'ref: refs/heads/main\n');
    return true;
  }

  /** Where the scan cache of a task directory lives (scan-cache.ts). */
  scanCachePath(cwd: string): string {
    return join(this.root, 'tether', 'scans', `${key(cwd)}.json`);
  }

  /** Stores a checkpoint's commit and its ref; returns its id. */
  commit(tree: Oid, meta: CheckpointMeta, refName: string): Checkpoint {
    const time = Math.floor(meta.at / 1000);
    const id = this.objects.put('commit', encodeCommit({ tree, time, message: encodeMeta(meta) }));
    const dir = join(RUNS, key(meta.workflowId), meta.chain.replace(/[^A-Za-z0-9-]/g, '_'));
    makeDirs(join(this.root, dir));
    const ref = join(dir, refName);
    writeAtomically(join(this.root, ref), `${id}\n`);
    return { id, tree, time, meta, ref };
  }

  read(id: Oid, ref = ''): Checkpoint | undefined {
    const o = this.objects.read(id);
    if (o.type !== 'commit') return undefined;
    const c = decodeCommit(o.body);
    const meta = decodeMeta(c.message);
    return meta ? { id, tree: c.tree, time: c.time, meta, ref } : undefined;
  }

  /** Every checkpoint of the workflow, oldest first. */
  list(workflowId: string): Checkpoint[] {
    return this.listRefs(join(RUNS, key(workflowId))).filter((c) => c.meta.workflowId === workflowId);
  }

  /** Every checkpoint in the store (pruning). */
  all(): Checkpoint[] {
    const out: Checkpoint[] = [];
    for (const run of this.entries(RUNS)) out.push(...this.listRefs(join(RUNS, run)));
    return out;
  }

  private entries(rel: string): string[] {
    try {
      return readdirSync(join(this.root, rel));
    } catch {
      return [];
    }
  }

  private listRefs(runDir: string): Checkpoint[] {
    const out: Checkpoint[] = [];
    for (const chain of this.entries(runDir)) {
      for (const name of this.entries(join(runDir, chain))) {
        if (name.includes('.tmp-')) continue;
        const ref = join(runDir, chain, name);
        try {
          const id = readFileSync(join(this.root, ref), 'utf8').trim();
          const c = /^[0-9a-f]{40}$/.test(id) ? this.read(id, ref) : undefined;
          if (c) out.push(c);
        } catch {
          // removed meanwhile (pruned), or its object is gone: not listed
        }
      }
    }
    return out.sort((a, b) => a.meta.at - b.meta.at || a.ref.localeCompare(b.ref));
  }

  deleteRef(ref: string): void {
    rmSync(join(this.root, ref), { force: true });
  }
}
