// Which project plugins a person has trusted: a project's .tether/plugins folder and the npm plugin packages
// resolved from its node_modules live where a run can write, and a plugin runs in the worker, outside every
// sandbox. Each is loaded only while its files are exactly what `tether plugins trust` recorded (sha256 over the
// tree). Worker-only.
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { tetherHome } from '../config/home.js';

/** TETHER_HOME/trusted-plugins.json: absolute path of a plugin folder or package → sha256 of its files. */
export function trustFile(): string {
  return join(tetherHome(), 'trusted-plugins.json');
}

/**
 * sha256 over a file or directory tree: every entry's relative path, type and content (a link's target text,
 * never what it points to), in name order. node_modules folders are left out: they hold dependencies, which this
 * does not cover (docs/tools.md says so). Undefined when the path does not exist.
 */
export function treeDigest(root: string): string | undefined {
  return scanTree(root)?.digest;
}

/** The digest and the links found in the tree (a link's target is code the digest does not cover). */
function scanTree(root: string): { digest: string; links: string[] } | undefined {
  if (!existsSync(root) && !isLink(root)) return undefined;
  const hash = createHash('sha256');
  const links: string[] = [];
  const visit = (path: string, rel: string): void => {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) {
      links.push(rel || '.');
      hash.update(`L ${rel}\0${readlinkSync(path)}\0`);
    } else if (info.isDirectory()) {
      hash.update(`D ${rel}\0`);
      for (const name of readdirSync(path).sort())
        if (name !== 'node_modules') visit(join(path, name), rel === '' ? name : `${rel}/${name}`);
    } else if (info.isFile()) {
      hash.update(`F ${rel} ${info.mode & 0o111 ? 'x' : '-'}\0`);
      hash.update(readFileSync(path));
      hash.update('\0');
    } else {
      hash.update(`O ${rel}\0`);
    }
  };
  visit(root, '');
  return { digest: hash.digest('hex'), links };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export type TrustRecord = Record<string, string>;

export function readTrust(file = trustFile()): TrustRecord {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  } catch {
    return {};
  }
}

/** Records the current digest of each path (a path that no longer exists is forgotten). */
export function recordTrust(paths: readonly string[], file = trustFile()): TrustRecord {
  const record = readTrust(file);
  for (const p of paths) {
    const digest = treeDigest(p);
    if (digest === undefined) delete record[p];
    else record[p] = digest;
  }
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return record;
}

/** Why the plugin at `path` may not load (never trusted, or changed since), or undefined when it may. */
export function untrusted(path: string, record: TrustRecord): string | undefined {
  const trusted = record[path];
  const now = scanTree(path);
  if (now && now.links.length > 0)
    return `${path} holds a symbolic link (${now.links[0]}): the code it leads to is not what was reviewed; replace the link with the files`;
  if (trusted === undefined)
    return `${path} is in the project (where a run can write) and was never trusted: review it, then run \`tether plugins trust\``;
  if (now?.digest !== trusted)
    return `${path} changed since it was trusted (a run may have written it): review it, then run \`tether plugins trust\``;
  return undefined;
}
