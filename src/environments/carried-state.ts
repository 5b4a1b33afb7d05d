// The sh text that carries exported variables from one command to the next as data, never as code: a command can
// write the state file (it lives where commands can write), so what is read back is parsed, not run, and variables
// that make programs run code are not carried at all. Pure string building. Worker-only.

/**
 * Variables never carried to the next command: those that make programs run code or read it from elsewhere (the
 * approval gate judges them in the command that sets them, but a value planted in the state file would reach later
 * commands unseen), and the shell's own. Kept in step with src/detector/engine/later-commands.ts.
 */
const NOT_CARRIED = [
  // A command line a program runs.
  'GIT_SSH_COMMAND|GIT_SSH|GIT_PAGER|PAGER|MANPAGER|SYSTEMD_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|EDITOR|VISUAL|FCEDIT',
  'KUBE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|LESSOPEN|LESSCLOSE|PROMPT_COMMAND',
  'GIT_PROXY_COMMAND|RSYNC_RSH|BROWSER|npm_config_*|NPM_CONFIG_*',
  // A file a program runs at start, or options that load code.
  'BASH_ENV|ENV|PYTHONSTARTUP|NODE_OPTIONS|LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|PERL5OPT|RUBYOPT|JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS|JDK_JAVA_OPTIONS|MAKEFLAGS|MFLAGS',
  // Where programs read their configuration (and the hooks and aliases in it).
  'HOME|XDG_CONFIG_HOME|ZDOTDIR|GIT_CONFIG|GIT_CONFIG_*|GIT_DIR|GIT_TEMPLATE_DIR|GIT_EXEC_PATH|INPUTRC',
  // The shell's own.
  'IFS|PS4|SHELLOPTS|BASHOPTS|BASH_XTRACEFD|CDPATH|PWD|OLDPWD|SHLVL|_',
].join('|');

/** Search paths are carried only when no entry could put a planted program first (`.`, empty, relative, /tmp). */
const SEARCH_PATHS = 'PATH|PYTHONPATH|NODE_PATH|PERL5LIB|RUBYLIB|GEM_PATH|CLASSPATH';

/** The parts of a search path that could put a planted program first: `/tmp`-like directories (and for PATH `.`, empty and relative entries). */
const SEARCH_PATH_CHECK = [
  `    ${SEARCH_PATHS})`,
  '      case ":$2:" in *:/tmp|*:/tmp/*|*:/var/tmp|*:/var/tmp/*|*:/dev/shm|*:/dev/shm/*) return 1 ;; esac',
  '      [ "$1" = PATH ] && case ":$2:" in *::*|*:[!/]*) return 1 ;; esac ;;',
];

/** sh: `__tcarry NAME VALUE`, whether the variable may be carried to the next command. */
const SH_CARRY = [
  '__tcarry() {',
  '  case $1 in',
  "    ''|[0-9]*|*[!A-Za-z0-9_]*) return 1 ;;",
  `    ${NOT_CARRIED}) return 1 ;;`,
  ...SEARCH_PATH_CHECK,
  '  esac',
  '  return 0',
  '}',
];

/** The names of NOT_CARRIED without patterns, for bash's table lookup (a long `case` costs ~35 µs a variable there). */
const EXACT = NOT_CARRIED.split('|').filter((n) => !n.includes('*'));
const PREFIXES = NOT_CARRIED.split('|').filter((n) => n.includes('*'));

/**
 * bash 4.4 or newer (`${!name@a}` gives a variable's attributes, `mapfile -d` reads records). At start it notes the
 * exported variables it was given (`__tboot`); a save writes only the exports that differ from those, as `NAME=VALUE`
 * records separated by NUL (which no value can hold); a restore reads them and sets each with `export -- "$kv"`,
 * which assigns and never evaluates. The names come from `compgen -e` through a file overwritten in place (a pipe or
 * `$(...)` would fork, a truncated file costs a flush), read up to its `=end` line. Defined through `eval` so that
 * other shells never parse it.
 */
const BASH_IO = `[ -n "$__tbash" ] && eval '
declare -A __tnc=(${EXACT.map((n) => `[${n}]=1`).join(' ')})
__tcarry() {
  [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || return 1
  [[ -n \${__tnc[$1]} ]] && return 1
  case $1 in
    ${PREFIXES.join('|')}) return 1 ;;
${SEARCH_PATH_CHECK.join('\n')}
  esac
  return 0
}
__tnames() { { compgen -e; echo =end; } 1<> "$1" 2>/dev/null; mapfile -t __tns < "$1"; }
__tsnap() {
  declare -gA __tboot=(); __tnames "$1"
  for __tn in "\${__tns[@]}"; do [ "$__tn" = =end ] && break; __tboot[$__tn]=\${!__tn}; done
}
__tenv_out() {
  __tnames "$1"
  for __tn in "\${__tns[@]}"; do
    [ "$__tn" = =end ] && break
    case \${!__tn@a} in *r*) continue ;; *x*) ;; *) continue ;; esac
    [[ -n \${__tboot[$__tn]+set} && \${__tboot[$__tn]} == "\${!__tn}" ]] && continue
    printf "%s=%s\\\\0" "$__tn" "\${!__tn}"
  done
  printf "=end\\\\0"
}
__tenv_in() {
  mapfile -d "" -t __trecs
  for __kv in "\${__trecs[@]}"; do
    [ "$__kv" = =end ] && break
    __tcarry "\${__kv%%=*}" "\${__kv#*=}" && export -- "$__kv" 2>/dev/null
  done
}'`;

/** Other shells save `export -p` and read back only one-line `export NAME='value'` entries, as text. */
const SH_IO = [
  '[ -n "$__tbash" ] || {',
  ...SH_CARRY,
  '__tsnap() { :; }',
  '__tenv_out() { export -p; echo =end; }',
  '__tenv_in() {',
  '  while IFS= read -r __l && [ "$__l" != =end ]; do',
  // dash and busybox print export NAME='value'; an older bash prints declare -x NAME="value" (taken without escapes).
  '    case $__l in "export "*=*) __l=${__l#export } ;; "declare -x "*=*) __l=${__l#declare -x } ;; *) continue ;; esac',
  '    __tn=${__l%%=*}; __tv=${__l#*=}',
  // Single quotes: no quote inside (an escaped one is skipped). Double quotes: no backslash inside (no escapes).
  "    case $__tv in \\'*\\') __tv=${__tv#?}; __tv=${__tv%?}; case $__tv in *\\'*) continue ;; esac ;;",
  '      \\"*\\") __tv=${__tv#?}; __tv=${__tv%?}; case $__tv in *\\\\*) continue ;; esac ;;',
  '      *) continue ;; esac',
  '    __tcarry "$__tn" "$__tv" && export "$__tn=$__tv" 2>/dev/null',
  '  done',
  '}',
  '}',
];

/**
 * `__tmay_export COMMAND`: whether the command's text could change an exported variable (an `export`, an assignment,
 * `unset`, `read`, a sourced file, `eval`, ...). Only then is the state saved after it: most commands (`ls`, `npm
 * test`) change none, and the save is the costly part. A command that changes none is never missed; one that could
 * is saved even when it did not.
 */
const MAY_EXPORT = [
  '__tmay_export() {',
  '  case $1 in',
  "    *=*|*export*|*declare*|*typeset*|*unset*|*source*|*'. '*|*eval*|*readonly*|*local*|*read*|*mapfile*|*printf*|*let*|*'(('*|*set*|*getopts*) return 0 ;;",
  '  esac',
  '  return 1',
  '}',
];

/**
 * Defines `__tsnap FILE` (notes the exports this shell was given), `__tenv_in` (sets the carried state read on
 * stdin), `__tmay_export COMMAND` (above) and `__tenv_out FILE` (prints the exports that differ from what the shell
 * was given, as carried state). FILE is scratch space: one writer at a time.
 */
export const CARRIED_STATE_FUNCTIONS = [
  '__tbash=; [ -n "$BASH_VERSION" ] && eval \'[ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 4 ]; }\' && __tbash=1',
  BASH_IO,
  ...SH_IO,
  ...MAY_EXPORT,
];
