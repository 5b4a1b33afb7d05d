// The POSIX sh scripts that give every backend the same behaviour: state carried between commands, process groups,
// timeouts, kills and file-backed background processes. Pure string building, no I/O. Worker-only.
import { CARRIED_STATE_FUNCTIONS } from './carried-state.js';

/** Quotes a value for POSIX sh: safe for any string without NUL. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `export K='v'` lines; names that are not valid shell names are refused, so a key cannot inject code. */
export function exportLines(env: Record<string, string> | undefined): string {
  if (!env) return '';
  return Object.entries(env)
    .map(([k, v]) => {
      if (!NAME.test(k)) throw new Error(`environment variable name '${k}' is not a valid shell name`);
      return `export ${k}=${shQuote(v)}\n`;
    })
    .join('');
}

/**
 * Runs in the user's shell (bash when the environment has it, else sh) with $1 = state dir, $2 = default working
 * directory, $3 = command, $4 = a one-off working directory or empty, $5 = 1 to save state afterwards. It restores
 * the exports and directory the last command left, runs the command in this same shell (so `cd` and `export`
 * take effect) and saves both again on exit, whatever way the command ends.
 */
const INNER = [
  '__td=$1; __tw=$2; __tc=$3; __to=$4; __ts=$5; shift 5',
  ...CARRIED_STATE_FUNCTIONS,
  // Saved after every command on this path, unlike the task shell: what a program run by execute_code exported through
  // its own terminal calls ends with it because its wrapper saves its own exports over theirs when it exits.
  '[ "$__ts" = 1 ] && __tsnap "$__td/names.$$"',
  // Read as data, never run: a command can write this file (see carried-state.ts).
  '[ -r "$__td/env" ] && __tenv_in < "$__td/env" 2>/dev/null',
  // A one-off directory is relative to the task's working directory, not to wherever the last `cd` went.
  'case $__to in ""|/*) ;; *) __to=$__tw/$__to ;; esac',
  'if [ -n "$__to" ]; then cd -- "$__to" || exit 126',
  // The first line only: the long-lived shell overwrites this file in place, leaving older bytes after it.
  'elif [ -r "$__td/cwd" ] && read -r __tp < "$__td/cwd" && cd -- "$__tp" 2>/dev/null; then :',
  'else cd -- "$__tw" 2>/dev/null || cd /; fi',
  '__tether_save() {',
  '  [ "$__ts" = 1 ] || return 0',
  '  __tenv_out "$__td/names.$$" > "$__td/env.$$" 2>/dev/null && mv -f "$__td/env.$$" "$__td/env"',
  '  rm -f "$__td/names.$$"',
  '  [ -z "$__to" ] && pwd > "$__td/cwd.$$" && mv -f "$__td/cwd.$$" "$__td/cwd"',
  '  return 0',
  '}',
  "trap '__tether_save' EXIT",
  'eval "$__tc"',
].join('\n');

export interface CommandScriptOptions {
  stateDir: string;
  /** Identifies this command's files (pid, markers) in the state dir. */
  id: string;
  command: string;
  defaultCwd: string;
  /** A one-off working directory for this command (its `cd` is not carried over). */
  cwd?: string;
  env?: Record<string, string>;
  /** 0: no time limit. */
  timeoutSeconds: number;
  /** With a PTY the command keeps the terminal as its controlling terminal: it runs in the wrapper's own group. */
  pty: boolean;
  /** Carry `cd` and `export` over to the next command (foreground commands yes, background ones no). */
  saveState: boolean;
  /** A process on the same machine whose death kills the command (the local worker), so nothing runs unobserved. */
  guardPid?: number;
  /** File that receives the exit code when the command ends (background processes on file-backed transports). */
  exitFile?: string;
}

/**
 * A watchdog in its own session: when the time is up it marks the command as timed out and kills its process group
 * (TERM, then KILL after 2 s); it also kills it when the guard process dies. It ends when the command does.
 */
function watchdog(o: CommandScriptOptions): string {
  if (o.timeoutSeconds <= 0 && o.guardPid === undefined) return '';
  const body = [
    'P=$1; T=$2; G=$3; F=$4; i=0',
    'while kill -0 "$P" 2>/dev/null; do',
    '  sleep 1; i=$((i+1))',
    '  if [ "$T" -gt 0 ] && [ "$i" -ge "$T" ]; then : > "$F.timeout"; break; fi',
    '  if [ -n "$G" ] && ! kill -0 "$G" 2>/dev/null; then break; fi',
    'done',
    'kill -0 "$P" 2>/dev/null || exit 0',
    'kill -TERM -"$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null; sleep 2',
    'kill -KILL -"$P" 2>/dev/null || kill -KILL "$P" 2>/dev/null',
  ].join('\n');
  return `$SS sh -c ${shQuote(body)} tether-watchdog "$P" ${Math.ceil(o.timeoutSeconds)} ${shQuote(String(o.guardPid ?? ''))} "$F" </dev/null >/dev/null 2>&1 &\nWD=$!\n`;
}

/**
 * The whole script a transport runs for one command. Without a PTY the command gets a session (and process group)
 * of its own, so a timeout or kill reaches every process it started; with a PTY it stays in the wrapper's group.
 * Exit code: the command's, 124 after a timeout, 130 after a kill.
 */
export function commandScript(o: CommandScriptOptions): string {
  const f = `${o.stateDir}/${o.id}`;
  const run = `"$SH" $NORC -c ${shQuote(INNER)} tether "$D" ${shQuote(o.defaultCwd)} ${shQuote(o.command)} ${shQuote(o.cwd ?? '')} ${o.saveState ? 1 : 0}`;
  const lines = [
    `D=${shQuote(o.stateDir)}; F=${shQuote(f)}; WD=`,
    'mkdir -p "$D" 2>/dev/null',
    // --norc: `bash -c` reads ~/.bashrc when it guesses sshd or rshd started it (SSH_CLIENT set, or standard input a
    // socket, as Node's pipes are, with SHLVL unset), and a user's rc file then prints into every command's output.
    'SH=sh; NORC=; command -v bash >/dev/null 2>&1 && SH=bash && NORC=--norc',
    'SS=; command -v setsid >/dev/null 2>&1 && SS=setsid',
    exportLines(o.env),
  ];
  if (o.pty) {
    // The group is this shell's: a kill reaches it too, and the trap lets it report what happened.
    lines.push("trap ':' TERM", 'P=$$; echo "$P" > "$F.pid"', watchdog(o), `${run}; RC=$?`);
  } else {
    lines.push('exec 3<&0', `$SS ${run} <&3 3<&- &`, 'P=$!; echo "$P" > "$F.pid"', watchdog(o), 'wait "$P"; RC=$?');
  }
  lines.push(
    '[ -n "$WD" ] && kill "$WD" 2>/dev/null',
    '[ -e "$F.timeout" ] && RC=124',
    '[ -e "$F.killed" ] && RC=130',
    o.exitFile ? `echo "$RC" > ${shQuote(o.exitFile)}` : '',
    'rm -f "$F.pid" "$F.timeout" "$F.killed"',
    'exit "$RC"',
  );
  return lines.filter((l) => l !== '').join('\n');
}

/**
 * Kills a running command's process group (`session`: the command running in that long-lived shell): TERM, then KILL after `graceSeconds`, and waits until the group is gone,
 * so a caller told `killed` knows nothing of it runs any more. Prints `sent` once the TERM is out, then `killed`,
 * or `alive` (still there a second after KILL: a process stuck in the kernel); only `gone` if it had ended. A script
 * that printed `sent` and nothing more died with the sandbox's PID namespace, so the group is gone too.
 */
export function killScript(stateDir: string, id: string, graceSeconds = 2, session?: string): string {
  const f = shQuote(`${stateDir}/${session ?? id}`);
  const present = '__present';
  return [
    // A zombie (killed, not yet reaped: orphans wait for an init that may be slow) counts as gone.
    '__present() {',
    '  { kill -0 -"$P" || kill -0 "$P"; } 2>/dev/null || return 1',
    '  [ -r /proc/self/stat ] || return 0',
    '  for s in /proc/[0-9]*/stat; do',
    '    { read -r l < "$s"; } 2>/dev/null || continue',
    '    set -- ${l##*") "}',
    '    [ "$3" = "$P" ] && [ "$1" != Z ] && return 0',
    '  done',
    '  return 1',
    '}',
    `F=${f}; I=${shQuote(id)}; n=0`,
    // The wrapper writes the pid file right after it starts the command: a kill sent just before waits for it.
    // A long-lived shell's one pid file names the command running in it: `pid id timeout`.
    ...(session === undefined
      ? [
          'while [ ! -s "$F.pid" ] && [ "$n" -lt 20 ]; do sleep 0.1; n=$((n+1)); done',
          'P=$(cat "$F.pid" 2>/dev/null) || { echo gone; exit 0; }',
        ]
      : [
          'while ! { read -r P C T < "$F.pid" && [ "$C" = "$I" ]; } 2>/dev/null && [ "$n" -lt 20 ]; do sleep 0.1; n=$((n+1)); done',
          '[ "$C" = "$I" ] || { echo gone; exit 0; }',
        ]),
    'kill -0 "$P" 2>/dev/null || { echo gone; exit 0; }',
    'echo "$I" > "$F.killed"',
    'kill -TERM -"$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null',
    // In a sandbox's PID namespace this script may die with the namespace's last process: `sent` already says so.
    'echo sent',
    `n=0; while ${present} && [ "$n" -lt ${graceSeconds * 10} ]; do sleep 0.1; n=$((n+1)); done`,
    'kill -KILL -"$P" 2>/dev/null || kill -KILL "$P" 2>/dev/null',
    `n=0; while ${present} && [ "$n" -lt 10 ]; do sleep 0.1; n=$((n+1)); done`,
    `if ${present}; then echo alive; else echo killed; fi`,
  ].join('\n');
}
