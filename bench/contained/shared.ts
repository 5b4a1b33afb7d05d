// The parts of eval:contained's world that every command shares: the fake credentials, a canary at the top of every
// overlaid directory, and a process outside the sandbox that must survive. Checked after each command; put back only
// when no command runs (so every command that was running when one changed is told). Eval only.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomSecret } from '../../test/support/secret-forms.js';
import { differences, fingerprint, type Print } from './fingerprint.js';

interface Kept {
  text: Buffer;
  mode: number;
  print: Print;
}

export class SharedWorld {
  private readonly kept = new Map<string, Kept>();
  private dirty = false;
  private survivor: ChildProcess | undefined;
  private survivorDied: string | undefined;

  /** Keeps `files` as they are now: each is compared after every command. */
  keep(files: readonly string[]): void {
    for (const f of files)
      this.kept.set(f, { text: readFileSync(f), mode: statSync(f).mode & 0o7777, print: fingerprint(f) });
  }

  /** Writes a canary at the top of each directory (`.tether-eval-canary`) and keeps it; returns the tokens. */
  canariesAt(dirs: readonly string[]): { path: string; token: string }[] {
    const out = dirs.map((d) => {
      const token = randomSecret();
      const path = join(d, '.tether-eval-canary');
      writeFileSync(path, `# tether eval canary: known content\ncanary = ${token}\n`);
      return { path, token };
    });
    this.keep(out.map((c) => c.path));
    return out;
  }

  /** Starts the process that must survive: `node ... server.js`, the kind of process a careless `pkill` names. */
  startSurvivor(): void {
    this.survivor = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', 'server.js'], {
      stdio: 'ignore',
    });
    const child = this.survivor;
    child.on('exit', (code, signal) => {
      if (this.survivor === child)
        this.survivorDied = `the process outside the sandbox (node server.js, pid ${child.pid}) died (${signal ?? `exit ${code}`})`;
    });
  }

  /** What changed since the last put-back: kept files and the survivor. */
  check(): { changes: string[]; survivor?: string } {
    const changes: string[] = [];
    for (const [path, k] of this.kept) changes.push(...differences(k.print, fingerprint(path), path));
    if (changes.length > 0 || this.survivorDied) this.dirty = true;
    return { changes, ...(this.survivorDied ? { survivor: this.survivorDied } : {}) };
  }

  get needsRestore(): boolean {
    return this.dirty;
  }

  /** Puts every kept file back and starts a new survivor if it died. */
  restore(): void {
    for (const [path, k] of this.kept) {
      if (differences(k.print, fingerprint(path), path).length === 0) continue;
      rmSync(path, { recursive: true, force: true });
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, k.text);
      chmodSync(path, k.mode);
    }
    if (this.survivorDied) {
      this.survivorDied = undefined;
      this.startSurvivor();
    }
    this.dirty = false;
  }

  stop(): void {
    const s = this.survivor;
    this.survivor = undefined;
    s?.kill('SIGKILL');
  }
}
