// Reads what the approval gate asks for in a task's environment, where the command will run: scripts and modules
// (`missing`, unreadable, too big, a directory, compiled, or the text) and directory listings (names, directories
// with a trailing `/`, for globs and test discovery), many in one command per round; and the directory the command
// runs in. Worker-only.
import { createHash, randomBytes } from 'node:crypto';
import { listedDir, MAX_SCRIPT_BYTES, prefetchOf, type ScriptFile } from '../detector/engine/scripts.js';
import type { ShellEnvironment } from './shell-environment.js';
import { shQuote } from './shell-scripts.js';

/** Entries of one directory listed at most: a bigger directory cannot be searched and asks. */
const MAX_ENTRIES = 2000;
/** Files of one directory read ahead at most. */
const READ_AHEAD = 16;

const quoted = (key: string): string => (key.startsWith('~/') ? `"$HOME"/${shQuote(key.slice(2))}` : shQuote(key));

/** Readable files printed by one round at most (each at most MAX_SCRIPT_BYTES + 1 bytes); the rest wait a round. */
const FILES_PER_ROUND = 64;

/**
 * One shell script for a round of keys. It prints, after `\n<boundary> <index>\n`, each key's status (directory,
 * missing, unreadable, file; for a listing `entries` then one entry per line, or toomany); then after
 * `\n<boundary> data\n`, for each readable file in order, `\n<boundary> next\n` and its first MAX_SCRIPT_BYTES + 1
 * bytes. Statuses and listings are the shell's own tests and the contents one `head` for the whole round (the
 * separator is a file it prints between the others), so a round costs one process however many files it reads. The
 * boundary is random and new each round.
 */
function batchScript(keys: string[], boundary: string, separator: string): string {
  const lines = [
    `b=${boundary}; nl='`,
    `'`,
    // Names with a line break in them cannot be told apart in this listing: the directory is reported unreadable.
    'l() { d=$1; if [ ! -d "$d" ]; then echo missing; return; fi; c=0; o=;',
    '  for e in "$d"/* "$d"/.*; do [ -e "$e" ] || [ -L "$e" ] || continue; p=$e; e=${e##*/};',
    '    case "$e" in .|..) continue;; *"$nl"*) echo unreadable; return;; esac; [ -d "$p" ] && e="$e/";',
    `    c=$((c + 1)); if [ "$c" -gt ${MAX_ENTRIES} ]; then echo toomany; return; fi; o="$o$e$nl"; done;`,
    '  echo entries; printf %s "$o"; }',
    `s=${shQuote(separator)}; [ -d "\${s%/*}" ] || mkdir -p "\${s%/*}"; printf '\n%s next\n' "$b" > "$s"`,
    'set --',
  ];
  keys.forEach((key, i) => {
    const dir = listedDir(key);
    const ahead = prefetchOf(key);
    const k = quoted(key);
    lines.push(
      `printf '\n%s %d\n' "$b" ${i}; ` +
        (ahead !== undefined
          ? aheadScript(ahead.dir, ahead.ext)
          : dir !== undefined
            ? `l ${quoted(dir || '.')}`
            : `if [ -d ${k} ]; then echo directory; elif [ ! -e ${k} ]; then echo missing; ` +
              `elif [ ! -f ${k} ] || [ ! -r ${k} ]; then echo unreadable; else echo file; set -- "$@" "$s" ${k}; fi`),
    );
  });
  lines.push(
    `printf '\n%s data\n' "$b"`,
    `if [ $# -gt 0 ]; then head -q -c ${MAX_SCRIPT_BYTES + 1} -- "$@" 2>/dev/null; fi`,
    'exit 0',
  );
  return lines.join('\n');
}

/**
 * Reads ahead the regular files (not links) of `dir` ending in `ext`: prints `ahead` and their names, one a line, and
 * adds them to the files the round prints. An extension other than a dot and a few letters reads nothing.
 */
function aheadScript(dir: string, ext: string): string {
  if (!/^\.[A-Za-z0-9]{1,8}$/.test(ext)) return 'echo ahead';
  const glob = dir === '' ? `*${ext}` : `${quoted(dir)}/*${ext}`;
  return (
    `echo ahead; c=0; for f in ${glob}; do case "$f" in *"$nl"*) continue;; esac; ` +
    `[ -f "$f" ] && [ -r "$f" ] && [ ! -L "$f" ] || continue; c=$((c + 1)); [ "$c" -gt ${READ_AHEAD} ] && break; ` +
    `printf '%s\n' "$f"; set -- "$@" "$s" "$f"; done`
  );
}

/** What the status line (and for a listing, the lines after it) of a key says, for all but a readable file. */
function statusOf(piece: string, listing: boolean): ScriptFile | 'file' {
  const nl = piece.indexOf('\n');
  const head = (nl < 0 ? piece : piece.slice(0, nl)).trim();
  const body = nl < 0 ? '' : piece.slice(nl + 1);
  if (head === 'missing') return { missing: true };
  if (head === 'directory') return { directory: true };
  if (head === 'unreadable') return { error: listing ? 'cannot be listed' : 'is not a readable file' };
  if (head === 'toomany') return { error: `has more than ${MAX_ENTRIES} entries` };
  if (listing && head === 'entries') return { entries: body.split('\n').filter((e) => e !== '') };
  if (!listing && head === 'file') return 'file';
  return { error: `could not be read (${head.slice(0, 80)})` };
}

/** A file's bytes as the gate judges them: a compiled program is not a script, what it does cannot be read. */
function contentOf(bytes: Buffer): ScriptFile {
  if (bytes.length > MAX_SCRIPT_BYTES)
    return { error: `is too big to check (at most ${MAX_SCRIPT_BYTES} bytes are read)` };
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (bytes.includes(0) || bytes.subarray(0, 4).toString('latin1') === '\u007fELF') return { binary: true, digest };
  return { text: bytes.toString('utf8'), digest };
}

/** The parts of `data` between occurrences of `separator` (what comes before the first one is dropped). */
function splitBytes(data: Buffer, separator: string): Buffer[] {
  const parts: Buffer[] = [];
  let at = data.indexOf(separator);
  while (at >= 0) {
    const from = at + Buffer.byteLength(separator);
    const next = data.indexOf(separator, from);
    parts.push(data.subarray(from, next < 0 ? data.length : next));
    at = next;
  }
  return parts;
}

/** One round's output, parsed: each key's file or listing, and the files read ahead under their own keys. */
function parseRound(keys: string[], raw: Buffer, boundary: string): Map<string, ScriptFile> {
  const out = new Map<string, ScriptFile>();
  const fail = (why: string) => {
    for (const k of keys) out.set(k, { error: `could not be read (${why})` });
    return out;
  };
  const dataAt = raw.indexOf(`\n${boundary} data\n`);
  if (dataAt < 0) return fail('the reading command ended early');
  const pieces = raw.subarray(0, dataAt).toString('utf8').split(`\n${boundary} `).slice(1);
  // The files whose bytes follow, in order: a key read, or a file read ahead (by its name).
  const readable: string[] = [];
  keys.forEach((key, i) => {
    const piece = pieces.find((p) => p.startsWith(`${i}\n`));
    const body = piece === undefined ? undefined : piece.slice(piece.indexOf('\n') + 1);
    if (prefetchOf(key) !== undefined) {
      const names = body?.startsWith('ahead')
        ? body
            .split('\n')
            .slice(1)
            .filter((n) => n !== '')
        : [];
      out.set(key, { entries: names });
      readable.push(...names);
      return;
    }
    const status = body === undefined ? { error: 'could not be read' } : statusOf(body, listedDir(key) !== undefined);
    if (status === 'file') readable.push(key);
    else out.set(key, status);
  });
  // One part per readable file: a file that vanished, or text that imitates the separator, leaves every file of the
  // round unjudged rather than judged on a guess.
  const contents = splitBytes(raw.subarray(dataAt), `\n${boundary} next\n`);
  readable.forEach((k, j) => {
    if (out.has(k)) return; // read as a key and ahead too: once is enough
    out.set(
      k,
      contents.length === readable.length ? contentOf(contents[j]!) : { error: 'changed while it was being read' },
    );
  });
  for (const k of keys) if (!out.has(k)) out.set(k, { error: 'could not be read' });
  return out;
}

/**
 * Reads files and directory listings in a task's environment, each relative to where the command runs (`workdir`,
 * or the shell's directory): one command for all of them, more only when their content exceeds the output budget.
 */
export async function readScriptsIn(
  env: ShellEnvironment,
  keys: string[],
  workdir?: string,
): Promise<Map<string, ScriptFile>> {
  const out = new Map<string, ScriptFile>();
  let pending = [...new Set(keys)];
  while (pending.length > 0) {
    // Files beyond the round's share wait for the next round; listings are all done now.
    let files = 0;
    const now = pending.filter((k) => listedDir(k) !== undefined || (files += 1) <= FILES_PER_ROUND);
    const boundary = `tether-read-${randomBytes(12).toString('hex')}`;
    const chunks: Buffer[] = [];
    const r = await env.run({
      command: batchScript(now, boundary, `${env.stateDir}/read-separator`),
      cwd: workdir,
      timeoutSeconds: 30,
      onOutput: (c) => chunks.push(c),
    });
    if (r.exitCode === 0) for (const [k, f] of parseRound(now, Buffer.concat(chunks), boundary)) out.set(k, f);
    else for (const k of now) out.set(k, { error: `could not be read (exit code ${r.exitCode})` });
    pending = pending.filter((k) => !out.has(k));
  }
  return out;
}

/** The directory a command runs in: the task shell's own (an earlier `cd` carries over), or `fallback`. */
export async function currentDirectory(env: ShellEnvironment, workdir: string | undefined, fallback: string) {
  const r = await env.run({ command: 'pwd -P', cwd: workdir, timeoutSeconds: 30 });
  const dir = r.output.trim();
  return r.exitCode === 0 && dir.startsWith('/') && !dir.includes('\n') ? dir : fallback;
}
