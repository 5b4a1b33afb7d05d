// Reads the scripts a command runs by path, in the task's environment where it will run, for the approval gate:
// `missing`, unreadable, too big, compiled, or the text; and the directory the command runs in. Worker-only.
import { createHash } from 'node:crypto';
import { MAX_SCRIPT_BYTES, type ScriptFile } from '../approval/scripts.js';
import type { ShellEnvironment } from './shell-environment.js';
import { shQuote } from './shell-scripts.js';

/** One shell line that prints `missing`, `unreadable`, or `size N` and then the file (when it is small enough). */
function readCommand(key: string): string {
  const path = key.startsWith('~/') ? `"$HOME"/${shQuote(key.slice(2))}` : shQuote(key);
  return `( f=${path}; if [ ! -e "$f" ]; then echo missing; elif [ ! -f "$f" ] || [ ! -r "$f" ]; then echo unreadable; else n=$(wc -c < "$f"); echo "size $n"; if [ "$n" -le ${MAX_SCRIPT_BYTES} ]; then cat "$f"; fi; fi )`;
}

function parseRead(output: string, exitCode: number | null): ScriptFile {
  if (exitCode !== 0) return { error: `could not be read (exit code ${exitCode})` };
  const nl = output.indexOf('\n');
  const head = (nl < 0 ? output : output.slice(0, nl)).trim();
  if (head === 'missing') return { missing: true };
  if (head === 'unreadable') return { error: 'is not a readable file' };
  const size = /^size\s+(\d+)$/.exec(head);
  if (!size) return { error: `could not be read (${head.slice(0, 80)})` };
  if (Number(size[1]) > MAX_SCRIPT_BYTES)
    return { error: `is too big to check (${size[1]} bytes; at most ${MAX_SCRIPT_BYTES} are read)` };
  const text = output.slice(nl + 1);
  // A compiled program is not a script: what it does cannot be read from its bytes.
  if (text.includes('\u0000') || text.startsWith('\u007fELF'))
    return { binary: true, digest: `sha256:${createHash('sha256').update(text).digest('hex')}` };
  return { text };
}

/** Reads scripts in a task's environment, each relative to where the command runs (`workdir`, or the shell's directory). */
export async function readScriptsIn(
  env: ShellEnvironment,
  keys: string[],
  workdir?: string,
): Promise<Map<string, ScriptFile>> {
  const out = new Map<string, ScriptFile>();
  for (const key of keys) {
    const r = await env.run({ command: readCommand(key), cwd: workdir, timeoutSeconds: 30 });
    out.set(key, parseRead(r.output, r.exitCode));
  }
  return out;
}

/** The directory a command runs in: the task shell's own (an earlier `cd` carries over), or `fallback`. */
export async function currentDirectory(env: ShellEnvironment, workdir: string | undefined, fallback: string) {
  const r = await env.run({ command: 'pwd -P', cwd: workdir, timeoutSeconds: 30 });
  const dir = r.output.trim();
  return r.exitCode === 0 && dir.startsWith('/') && !dir.includes('\n') ? dir : fallback;
}
