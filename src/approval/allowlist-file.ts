// Adds entries to command_allowlist in config.yaml: comments and every other setting kept, written atomically
// (temporary file + rename), one writer at a time in this process. Worker-only.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';
import type { AllowlistEntry } from '../common/approval-types.js';
import { TetherError } from '../common/errors.js';

let queue: Promise<unknown> = Promise.resolve();

/** One way of writing an entry, to tell whether the list holds it already. */
const same = (e: unknown): string => JSON.stringify(e);

function addNow(path: string, entries: AllowlistEntry[]): AllowlistEntry[] {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const doc = parseDocument(text);
  const invalid = (what: string, detail = ''): TetherError =>
    new TetherError('Config.Invalid', `${path}: ${what}, allowlist not changed${detail}`, false);
  if (doc.errors.length > 0) throw invalid('not valid YAML', `: ${doc.errors[0]!.message}`);
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  let list = doc.get('command_allowlist', true);
  if (list === undefined || list === null) {
    list = new YAMLSeq();
    doc.set('command_allowlist', list);
  }
  if (!isSeq(list)) throw invalid('command_allowlist is not a list');
  const present = new Set(list.items.map((i) => same((i as { toJSON?: () => unknown })?.toJSON?.() ?? i)));
  const added = entries.filter((e) => !present.has(same(e)));
  for (const e of added) {
    const node = doc.createNode(e);
    // An exact command in one directory reads as one line: `- { command: make deploy, cwd: /srv/app }`.
    if (isMap(node)) node.flow = true;
    list.add(node);
  }
  if (added.length === 0) return [];
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, doc.toString(), { mode: 0o600 });
  renameSync(tmp, path);
  return added;
}

/** Adds the entries not already present; returns those added. */
export function addToAllowlistFile(path: string, entries: AllowlistEntry[]): Promise<AllowlistEntry[]> {
  const next = queue.then(() => addNow(path, entries));
  queue = next.catch(() => undefined);
  return next;
}
