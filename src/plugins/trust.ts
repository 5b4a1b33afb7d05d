// Which project plugins a person has trusted: a project's .tether/plugins folder lives where a run can write, and a
// plugin runs in the worker, outside every sandbox. It is loaded only while its files are exactly what `tether
// plugins trust` recorded (sha256 over the whole tree, its node_modules included), and then from the copy made at
// that moment in TETHER_HOME. Worker-only.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { tetherHome } from '../config/home.js';
import { TetherError } from '../common/errors.js';

/** TETHER_HOME/trusted-plugins.json: absolute path of a plugin folder or package → sha256 of its files. */
export function trustFile(): string {
  return join(tetherHome(), 'trusted-plugins.json');
}

/**
 * sha256 over a file or directory tree: every entry's relative path, type and content (a link's target text,
 * never what it points to), in name order. Undefined when the path does not exist.
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
      for (const name of readdirSync(path).sort()) visit(join(path, name), rel === '' ? name : `${rel}/${name}`);
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

/** Where tether keeps its copy of a trusted project folder: TETHER_HOME/trusted-plugins/<digest of its path>. */
export function trustedCopy(projectDir: string): string {
  return join(tetherHome(), 'trusted-plugins', createHash('sha256').update(projectDir).digest('hex').slice(0, 16));
}

/**
 * Records the current digest of each path and copies it into TETHER_HOME, where it is loaded from (a path that no
 * longer exists is forgotten). A tree holding a link is refused: what it leads to is not what was reviewed.
 */
export function recordTrust(paths: readonly string[], file = trustFile()): TrustRecord {
  const record = readTrust(file);
  for (const p of paths) {
    const scan = scanTree(p);
    const copy = trustedCopy(p);
    rmSync(copy, { recursive: true, force: true });
    if (scan === undefined) {
      delete record[p];
      continue;
    }
    if (scan.links.length > 0)
      throw new TetherError(
        'Config.Invalid',
        `${p} holds a symbolic link (${scan.links[0]}): replace it with the files it leads to, then trust again`,
        false,
      );
    cpSync(p, copy, { recursive: true });
    // What was copied is what is trusted: a change between the scan and the copy would otherwise slip in.
    const copied = treeDigest(copy);
    if (copied !== scan.digest) {
      rmSync(copy, { recursive: true, force: true });
      throw new TetherError('Config.Invalid', `${p} changed while it was being trusted: trust it again`, false);
    }
    record[p] = scan.digest;
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
  if (now?.digest !== trusted || treeDigest(trustedCopy(path)) !== trusted)
    return `${path} changed since it was trusted (a run may have written it): review it, then run \`tether plugins trust\``;
  return undefined;
}
