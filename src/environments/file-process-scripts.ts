// Scripts for background processes kept in files inside the environment, for transports that cannot stream
// standard input (cloud sandboxes): output in a log file, input through a FIFO, exit code in a file. Pure. Worker-only.
import { commandScript, shQuote, type CommandScriptOptions } from './shell-scripts.js';

function files(stateDir: string, id: string): string {
  return `F=${shQuote(`${stateDir}/${id}`)}`;
}

/**
 * Starts the command detached from the spawning channel. A holder process keeps the FIFO open for writing, so
 * the command sees end of input only when `closeInputScript` ends the holder.
 */
export function startFileProcessScript(
  o: Omit<CommandScriptOptions, 'exitFile' | 'pty' | 'saveState' | 'timeoutSeconds'>,
): string {
  const f = `${o.stateDir}/${o.id}`;
  const wrapper = commandScript({ ...o, pty: false, saveState: false, timeoutSeconds: 0, exitFile: `${f}.rc` });
  return [
    `mkdir -p ${shQuote(o.stateDir)}`,
    files(o.stateDir, o.id),
    'rm -f "$F.in" "$F.rc" "$F.log" && mkfifo "$F.in" || exit 1',
    'SS=; command -v setsid >/dev/null 2>&1 && SS=setsid',
    '$SS sh -c \'exec 4<>"$1"; exec sleep 2147483647\' holder "$F.in" </dev/null >/dev/null 2>&1 &',
    'echo $! > "$F.holder"',
    `$SS sh -c ${shQuote(wrapper)} <"$F.in" >"$F.log" 2>&1 &`,
    'echo started',
  ].join('\n');
}

/** Prints the exit code (or `-` while running), the log's size, then up to `limit` bytes of log from `offset`. */
export function pollFileProcessScript(stateDir: string, id: string, offset: number, limit: number): string {
  return [
    files(stateDir, id),
    'rc=$(cat "$F.rc" 2>/dev/null); [ -n "$rc" ] || rc=-',
    '[ -e "$F.log" ] || { echo missing; exit 3; }',
    'size=$(wc -c < "$F.log" | tr -d " ")',
    'printf "%s\\n%s\\n" "$rc" "$size"',
    `tail -c +${Math.max(0, Math.floor(offset)) + 1} "$F.log" | head -c ${Math.max(0, Math.floor(limit))}`,
  ].join('\n');
}

/** Writes to the process's standard input. */
export function writeFileProcessScript(stateDir: string, id: string, data: string): string {
  return [files(stateDir, id), '[ -p "$F.in" ] || exit 3', `printf '%s' ${shQuote(data)} > "$F.in"`].join('\n');
}

/** Ends the process's standard input (it reads end of file). */
export function closeInputScript(stateDir: string, id: string): string {
  return [
    files(stateDir, id),
    'H=$(cat "$F.holder" 2>/dev/null) && kill "$H" 2>/dev/null',
    'rm -f "$F.holder"; exit 0',
  ].join('\n');
}

/** Removes the process's files once it is done with. */
export function forgetFileProcessScript(stateDir: string, id: string): string {
  return [
    files(stateDir, id),
    'H=$(cat "$F.holder" 2>/dev/null) && kill "$H" 2>/dev/null',
    'rm -f "$F.in" "$F.rc" "$F.log" "$F.holder"',
  ].join('\n');
}

/** Parses what pollFileProcessScript printed. */
export function parsePoll(
  out: Buffer,
): { exitCode: number | null; running: boolean; size: number; data: Buffer } | undefined {
  const first = out.indexOf(0x0a);
  const second = first < 0 ? -1 : out.indexOf(0x0a, first + 1);
  if (second < 0) return undefined;
  const rc = out.subarray(0, first).toString().trim();
  const size = Number(
    out
      .subarray(first + 1, second)
      .toString()
      .trim(),
  );
  if (!Number.isFinite(size)) return undefined;
  const running = rc === '-';
  return { exitCode: running ? null : Number(rc), running, size, data: out.subarray(second + 1) };
}
