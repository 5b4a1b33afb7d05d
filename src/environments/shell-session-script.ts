// The POSIX sh text of a task's long-lived shell: the boot line a transport starts, the driver it then reads on its
// standard input, and one frame per command. Pure string building, no I/O. Worker-only.
import { CARRIED_STATE_FUNCTIONS } from './carried-state.js';
import { exportLines, shQuote } from './shell-scripts.js';

/**
 * Runs in each command's own (sub)shell with $1 = state dir, $2 = default working directory, $3 = command, $4 = a
 * one-off working directory or empty, $5 = `export` lines for this command, $6/$7 = a mark variable and its value
 * (empty: none). Like the per-command path it restores the exports and directory the last command left (builtins
 * only: no process is started for it) and saves both again when the command's shell exits.
 */
const INNER = [
  '__td=$1; __tw=$2; __tc=$3; __to=$4; __te=$5; __tmv=$6; __tmk=$7; shift 7',
  // Read as data, never run: a command can write this file (see carried-state.ts).
  '[ -r "$__td/env" ] && __tenv_in < "$__td/env" 2>/dev/null',
  'case $__to in ""|/*) ;; *) __to=$__tw/$__to ;; esac',
  'if [ -n "$__to" ]; then cd -- "$__to" || exit 126',
  'elif [ -r "$__td/cwd" ] && read -r __tp < "$__td/cwd" && cd -- "$__tp" 2>/dev/null; then :',
  'else cd -- "$__tw" 2>/dev/null || cd /; fi',
  'eval "$__te"',
  // The mark names this command's processes; the save puts back the shell's own, so the exports read as unchanged.
  '[ -n "$__tmv" ] && { eval "__tmkprev=\\${$__tmv-}; __tmkhad=\\${$__tmv+1}"; export "$__tmv=$__tmk"; }',
  // Overwritten in place (`1<>`), never truncated: on ext4 a truncate-and-rewrite costs a flush (~2 ms) per
  // command. What an earlier, longer state left after the `=end` record (env) or the first line (cwd) is never read.
  '__tether_save() {',
  '  [ -z "$__tsaved" ] || return 0; __tsaved=1',
  '  if [ -z "$__tmv" ]; then :; elif [ -n "$__tmkhad" ]; then export "$__tmv=$__tmkprev"; else unset "$__tmv"; fi',
  '  __tmay_export "$__tc" && __tenv_out "$__td/names" 1<> "$__td/env"',
  '  [ -z "$__to" ] && pwd 1<> "$__td/cwd"',
  '  return 0',
  '}',
  // In its own PID namespace (R=1) what the command left running is killed as soon as it ends (__treap), so its last
  // background process can go first thing in the trap: after a refused fork (a process limit) bash waits for that
  // process before the trap's first command returns, which held such a command until its timeout.
  '__tk=; [ "$R" = 1 ] && __tk=1',
  '__tsaved=; trap \'{ kill -KILL ${__tk:+"$!"}; } 2>/dev/null; __tether_save\' EXIT',
  // Saved after a normal end too: a command that set its own EXIT trap still carries its cd and exports over.
  'eval "$__tc"; __trc=$?; __tether_save; exit "$__trc"',
].join('\n');

/**
 * One watchdog per shell, started once (no process per command): every second it looks at the running command
 * (`$S.pid`: pid, id, timeout), marks a command past its time as timed out and kills its process group (TERM, KILL
 * after 2 s). When the guard process (the local worker) dies it kills the command and the shell. It ends with the
 * shell. bash sleeps with its `read -t` builtin on a private FIFO; other shells with `sleep`.
 */
const WATCHDOG = [
  '__twatch() {',
  '  if [ -n "$BASH_VERSION" ] && mkfifo "$S.fifo" 2>/dev/null && exec 9<>"$S.fifo"; then',
  '    __tnap() { read -r -t "$1" -u 9 __tx; }',
  '  else __tnap() { sleep "$1"; }; fi',
  '  __tcur=; __tn=0',
  '  while kill -0 "$__tdp" 2>/dev/null; do',
  '    __tnap 1',
  '    __tp=; __ti=; __tt=0; read -r __tp __ti __tt < "$S.pid"',
  '    if [ -n "$G" ] && ! kill -0 "$G" 2>/dev/null; then',
  '      [ -n "$__tp" ] && { kill -KILL -"$__tp" || kill -KILL "$__tp"; }',
  '      kill -KILL "$__tdp"; exit 0',
  '    fi',
  '    [ -n "$__tp" ] || { __tcur=; continue; }',
  '    [ "$__tp $__ti" = "$__tcur" ] || { __tcur="$__tp $__ti"; __tn=0; }',
  '    __tn=$((__tn+1))',
  '    if [ "$__tt" -gt 0 ] && [ "$__tn" -ge "$__tt" ] && kill -0 "$__tp" 2>/dev/null; then',
  '      echo "$__ti" > "$S.timeout"',
  '      kill -TERM -"$__tp" || kill -TERM "$__tp"; __tnap 2',
  '      kill -KILL -"$__tp" || kill -KILL "$__tp"; __tcur=',
  '    fi',
  '  done',
  '}',
].join('\n');

export interface DriverOptions {
  stateDir: string;
  /** The task's default working directory. */
  workdir: string;
  /** Names this shell's files in the state dir (`$S.pid`, `$S.in`, ...); also its transport tag. */
  tag: string;
  /** Marks the sentinels: random, so no command's output can forge one. */
  nonce: string;
  /** A local process whose death ends the command and the shell (the worker, for unsandboxed local). */
  guardPid?: number;
  /** The shell has a PID namespace of its own: after each command every process it left is killed. */
  reapsLeftovers: boolean;
  /** A variable each command's processes inherit with the command's id appended (how leftovers are found). */
  markVariable?: string;
}

/**
 * What a transport runs to start the shell: bash when the environment has it (commands then run in bash, as on
 * the per-command path), else sh, reading the driver and then commands from its standard input. Not `exec`, so a
 * command's `$PPID` is this wrapper, never the worker that started it, and the wrapper reports the shell's end.
 */
export function bootScript(stateDir: string, env: Record<string, string> | undefined, nonce: string): string {
  return [
    `mkdir -p ${shQuote(stateDir)} 2>/dev/null`,
    exportLines(env),
    'if command -v bash >/dev/null 2>&1; then bash --norc --noprofile -s; else sh -s; fi',
    // Said at once, while what the dead shell's command started may still hold the channel open.
    `printf '\\000%s:died:%s\\000' ${shQuote(nonce)} "$?"`,
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/**
 * The driver, written to the shell's standard input once. Each command runs in a child shell of its own (bash: a
 * forked subshell, no new program), in a process group of its own (bash job control; elsewhere `setsid`), with its
 * standard input from a pipe or /dev/null and stdout and stderr on the one stream: so it cannot read the next command, and `exit`, `exec`,
 * `set -e`, traps, functions and unexported variables end with it. The driver then prints a sentinel
 * `NUL nonce:id:exit code:cwd NUL`. Frames are calls of `__t`, one per line.
 */
export function driverScript(o: DriverOptions): string {
  return [
    'exec 2>/dev/null',
    `D=${shQuote(o.stateDir)}; W=${shQuote(o.workdir)}; S=${shQuote(`${o.stateDir}/${o.tag}`)}; N=${shQuote(o.nonce)}`,
    `G=${shQuote(o.guardPid === undefined ? '' : String(o.guardPid))}; R=${o.reapsLeftovers ? 1 : 0}; M=${shQuote(o.markVariable ?? '')}; MB=`,
    '[ -n "$M" ] && eval "MB=\\${$M}"',
    'J=; SS=; if [ -n "$BASH_VERSION" ]; then set -m; J=1; elif command -v setsid >/dev/null 2>&1; then SS=setsid; fi',
    // The carried-state functions, and what this shell was given: each command's subshell inherits both.
    ...CARRIED_STATE_FUNCTIONS,
    '__td=$D; __tsnap "$D/names"',
    `__tinner=${shQuote(INNER)}`,
    ': > "$S.pid"; : > "$S.timeout"; : > "$S.killed"',
    WATCHDOG,
    '__tdp=$$; ( __twatch ) </dev/null >/dev/null 2>&1 & __twp=$!',
    // In a PID namespace of its own: everything but the namespace's init, the boot wrapper, this shell and its watchdog.
    '__treap() {',
    '  for __tq in /proc/[0-9]*; do __tq=${__tq#/proc/}',
    '    case $__tq in 1|$$|$PPID|$__twp) ;; *) kill -KILL "$__tq" ;; esac',
    '  done',
    '}',
    '__t() {',
    '  __ti=$1',
    // Standard input: the given text through a pipe inside the command's group, else /dev/null (never this stream).
    '  if [ -n "$J" ]; then',
    '    if [ "$4" = 1 ]; then ( set +m; printf %s "$5" | { set -- "$D" "$W" "$7" "$2" "$6" "$M" "$MB/$__ti"; eval "$__tinner"; } ) 2>&1 &',
    '    else ( set +m; set -- "$D" "$W" "$7" "$2" "$6" "$M" "$MB/$__ti"; eval "$__tinner" ) </dev/null 2>&1 & fi',
    '  else',
    '    if [ "$4" = 1 ]; then printf %s "$5" | $SS sh -c "$__tinner" tether "$D" "$W" "$7" "$2" "$6" "$M" "$MB/$__ti" 2>&1 &',
    '    else $SS sh -c "$__tinner" tether "$D" "$W" "$7" "$2" "$6" "$M" "$MB/$__ti" </dev/null 2>&1 & fi',
    '  fi',
    '  __tpid=$!',
    // Fixed-width records overwritten in place: see the state save above.
    '  printf "%-120s\\n" "$__tpid $__ti $3" 1<> "$S.pid"',
    '  wait "$__tpid"; __trc=$?',
    '  printf "%-120s\\n" "" 1<> "$S.pid"',
    '  __tx=; read -r __tx < "$S.timeout"; [ "$__tx" = "$__ti" ] && __trc=124',
    '  __tx=; read -r __tx < "$S.killed"; [ "$__tx" = "$__ti" ] && __trc=130',
    '  [ "$R" = 1 ] && __treap',
    '  __tx=; read -r __tx < "$D/cwd"',
    '  printf \'\\000%s:%s:%s:%s\\000\' "$N" "$__ti" "$__trc" "$__tx"',
    '}',
    'printf \'\\000%s:ready\\000\' "$N"',
    '',
  ].join('\n');
}

export interface FrameOptions {
  id: string;
  command: string;
  /** A one-off working directory. */
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  timeoutSeconds: number;
}

/** One command for the driver: a single `__t` call (quoted arguments may span lines; the shell reads to its end). */
export function frame(f: FrameOptions): string {
  const args = [
    f.id,
    f.cwd ?? '',
    String(Math.max(0, Math.ceil(f.timeoutSeconds))),
    f.stdin === undefined ? '0' : '1',
    f.stdin ?? '',
    exportLines(f.env),
    f.command,
  ];
  return `__t ${args.map(shQuote).join(' ')}\n`;
}
