// command_allowlist as this worker holds it: the entries read when it started, and those `always` approvals added
// since (in memory at once; written to config.yaml for the next start). A file changed while the worker runs
// changes nothing here: policy is read at start. Worker-only.
import type { AllowlistEntry } from '../common/approval-types.js';
import { addToAllowlistFile } from './allowlist-file.js';
import { allowlistProblem } from '../common/allowlist.js';

export class AllowlistBook {
  private readonly added: AllowlistEntry[] = [];

  /** `file`: where `always` decisions are written for the next start (none: memory only). */
  constructor(
    private readonly atStart: readonly AllowlistEntry[],
    readonly file?: string,
  ) {}

  entries(): readonly AllowlistEntry[] {
    return this.added.length === 0 ? this.atStart : [...this.atStart, ...this.added];
  }

  /**
   * Holds the entries from now on (an entry the configuration would refuse is refused here too), then writes them
   * to config.yaml. Resolves with what was written; a file that cannot be written is the caller's to report.
   */
  async add(entries: readonly AllowlistEntry[]): Promise<AllowlistEntry[]> {
    const known = new Set(this.entries().map((e) => JSON.stringify(e)));
    const fresh = entries.filter((e) => allowlistProblem(e) === undefined && !known.has(JSON.stringify(e)));
    this.added.push(...fresh);
    return this.file && fresh.length > 0 ? addToAllowlistFile(this.file, fresh) : [];
  }
}

let current: AllowlistBook | undefined;

/** The allowlist of this worker (set when its activities are made); undefined outside a worker. */
export const workerAllowlist = (): AllowlistBook | undefined => current;

export function setWorkerAllowlist(book: AllowlistBook): void {
  current = book;
}
