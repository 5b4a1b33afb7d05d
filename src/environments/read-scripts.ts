// Reads what the approval gate asks for in a task's environment, where the command will run: scripts and modules
// (`missing`, unreadable, too big, a directory, compiled, or the text) and directory listings (names, directories
// with a trailing `/`, for globs and test discovery), many in one command per round; and the directory the command
// runs in. Worker-only.
import { createHash, randomBytes } from 'node:crypto';
import { listedDir, MAX_SCRIPT_BYTES, type ScriptFile } from '../approval/scripts.js';
import type { ShellEnvironment } from './shell-environment.js';
import { shQuote } from './shell-scripts.js';

/** Bytes of file content one command prints at most; files past it are read by the next command. */
const OUTPUT_BUDGET = 1024 * 1024;
/** Entries of one directory listed at most: a bigger directory cannot be searched and asks. */
const MAX_ENTRIES = 2000;

const quoted = (key: string): string => (key.startsWith('~/') ? `"$HOME"/${shQuote(key.slice(2))}` : shQuote(key));

/**
 * One shell script that prints, for each key, `\n<boundary> <index>\n` then a status line and (for a file within the
 * budget) its bytes, or (for a listing) one entry per line. The boundary is random, so a file cannot fake one.
 */
function batchScript(keys: string[], boundary: string): string {
  const lines = [
    `b=${boundary}; t=0; nl='`,
    `'`,
    'r() { f=$1; if [ -d "$f" ]; then echo directory; elif [ ! -e "$f" ]; then echo missing;',
    '  elif [ ! -f "$f" ] || [ ! -r "$f" ]; then echo unreadable;',
    `  else n=$(wc -c < "$f" | tr -d ' '); if [ "$n" -gt ${MAX_SCRIPT_BYTES} ]; then echo "size $n";`,
    `  elif [ $((t + n)) -gt ${OUTPUT_BUDGET} ] && [ "$t" -gt 0 ]; then echo deferred;`,
    '  else t=$((t + n)); echo "size $n"; cat "$f"; fi; fi; }',
    // Names with a line break in them cannot be told apart in this listing: the directory is reported unreadable.
    'l() { d=$1; if [ ! -d "$d" ]; then echo missing; return; fi; c=0; o=;',
    '  for e in "$d"/* "$d"/.*; do [ -e "$e" ] || [ -L "$e" ] || continue; p=$e; e=${e##*/};',
    '    case "$e" in .|..) continue;; *"$nl"*) echo unreadable; return;; esac; [ -d "$p" ] && e="$e/";',
    `    c=$((c + 1)); if [ "$c" -gt ${MAX_ENTRIES} ]; then echo toomany; return; fi; o="$o$e$nl"; done;`,
    '  echo entries; printf %s "$o"; }',
  ];
  keys.forEach((key, i) => {
    const dir = listedDir(key);
    lines.push(`printf '\\n%s %d\\n' "$b" ${i}; ${dir === undefined ? `r ${quoted(key)}` : `l ${quoted(dir || '.')}`}`);
  });
  return lines.join('\n');
}

function parsePiece(piece: string, listing: boolean): ScriptFile | 'deferred' {
  const nl = piece.indexOf('\n');
  const head = (nl < 0 ? piece : piece.slice(0, nl)).trim();
  const body = nl < 0 ? '' : piece.slice(nl + 1);
  if (head === 'missing') return { missing: true };
  if (head === 'directory') return { directory: true };
  if (head === 'deferred') return 'deferred';
  if (head === 'unreadable') return { error: listing ? 'cannot be listed' : 'is not a readable file' };
  if (head === 'toomany') return { error: `has more than ${MAX_ENTRIES} entries` };
  if (listing && head === 'entries') return { entries: body.split('\n').filter((e) => e !== '') };
  const size = /^size\s+(\d+)$/.exec(head);
  if (!size) return { error: `could not be read (${head.slice(0, 80)})` };
  if (Number(size[1]) > MAX_SCRIPT_BYTES)
    return { error: `is too big to check (${size[1]} bytes; at most ${MAX_SCRIPT_BYTES} are read)` };
  // A compiled program is not a script: what it does cannot be read from its bytes.
  if (body.includes('\u0000') || body.startsWith('\u007fELF'))
    return { binary: true, digest: `sha256:${createHash('sha256').update(body).digest('hex')}` };
  return { text: body };
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
    const boundary = `tether-read-${randomBytes(12).toString('hex')}`;
    const r = await env.run({ command: batchScript(pending, boundary), cwd: workdir, timeoutSeconds: 30 });
    const pieces = r.output.split(`\n${boundary} `).slice(1);
    const next: string[] = [];
    pending.forEach((key, i) => {
      const piece = pieces.find((p) => p.startsWith(`${i}\n`));
      const file: ScriptFile | 'deferred' =
        r.exitCode !== 0 || piece === undefined
          ? { error: `could not be read (exit code ${r.exitCode})` }
          : parsePiece(piece.slice(piece.indexOf('\n') + 1), listedDir(key) !== undefined);
      if (file === 'deferred') next.push(key);
      else out.set(key, file);
    });
    // The first file of a command is always printed, so each command makes progress.
    pending = next;
  }
  return out;
}

/** The directory a command runs in: the task shell's own (an earlier `cd` carries over), or `fallback`. */
export async function currentDirectory(env: ShellEnvironment, workdir: string | undefined, fallback: string) {
  const r = await env.run({ command: 'pwd -P', cwd: workdir, timeoutSeconds: 30 });
  const dir = r.output.trim();
  return r.exitCode === 0 && dir.startsWith('/') && !dir.includes('\n') ? dir : fallback;
}
