// Canonical argument vectors: base names of commands, wrappers peeled (sudo, env, timeout, xargs, ...), flags
// normalised (-rf, -r -f, --recursive --force, flags after operands). Pure.
import { literal, type Word } from './words.js';
import { keyTable, names } from './names.js';

export interface Argv {
  /** Base name of the command (`/bin/rm` → `rm`); null when it is computed at run time. */
  name: string | null;
  /** The command word as written (after quote removal). */
  written: string;
  args: Word[];
  /** Reached through xargs: more operands arrive on standard input. */
  viaXargs: boolean;
}

export interface Flags {
  short: Set<string>;
  long: Set<string>;
  /** Values of options that take one (`-u root` → '-u' → 'root'; `--user=root` → '--user' → 'root'). */
  values: Map<string, string>;
  /** The same values as words (an attached value is its option's word with the value's text). */
  words: Map<string, Word>;
  operands: Word[];
}

/**
 * Splits arguments into flags and operands. `valueOpts` lists options that take a value (as '-o' or '--opt');
 * their values are not operands. `--` ends the options.
 */
export function parseFlags(args: readonly Word[], valueOpts: readonly string[] = []): Flags {
  const flags: Flags = { short: new Set(), long: new Set(), values: new Map(), words: new Map(), operands: [] };
  const value = (opt: string, w: Word): void => {
    flags.values.set(opt, w.text);
    flags.words.set(opt, w);
  };
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    const t = a.text;
    if (t === '--') {
      flags.operands.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--') && !a.dynamic) {
      const eq = t.indexOf('=');
      const name = eq >= 0 ? t.slice(0, eq) : t;
      flags.long.add(name);
      if (eq >= 0) value(name, { ...a, text: t.slice(eq + 1) });
      else if (valueOpts.includes(name) && i + 1 < args.length) value(name, args[(i += 1)]!);
      continue;
    }
    if (t.length > 1 && t.startsWith('-') && !a.dynamic) {
      for (let j = 1; j < t.length; j += 1) {
        const opt = `-${t[j]}`;
        flags.short.add(t[j]!);
        if (valueOpts.includes(opt)) {
          const rest = t.slice(j + 1);
          if (rest) value(opt, { ...a, text: rest });
          else if (i + 1 < args.length) value(opt, args[(i += 1)]!);
          break;
        }
      }
      continue;
    }
    flags.operands.push(a);
  }
  return flags;
}

/**
 * Whether any of the short flags or long options is set. GNU tools accept an unambiguous prefix of a long option
 * (`--recur` for `--recursive`), so a given option of at least two letters that starts one counts.
 */
export function has(flags: Flags, short: string, ...long: string[]): boolean {
  if ([...short].some((c) => flags.short.has(c))) return true;
  return long.some(
    (l) => flags.long.has(l) || [...flags.long].some((given) => given.length >= 4 && l.startsWith(given)),
  );
}

interface Wrapper {
  /** Options taking a value. */
  valueOpts?: readonly string[];
  /** Operands to skip after the options (timeout's DURATION, chroot's NEWROOT). */
  skip?: number;
  /** Options after which nothing is run (`command -v`, `sudo -l`). */
  lookupOnly?: string[];
  /** NAME=VALUE operands are settings, not the command (env). */
  assignments?: boolean;
  /** Options whose value is a whole command line (flock -c CMD, npx -c CMD). */
  commandOpts?: string[];
  /** Given no command, it starts a shell (`pkexec`, `chroot /`, `unshare -m`, `runuser -u root`). */
  shell?: boolean;
}

const WRAPPERS: Record<string, Wrapper> = keyTable({
  // Wrappers without options of their own. `!` is bash's negation read as a command word after the first
  // (`! ! rm -rf ~` runs rm).
  '!': { assignments: true },
  'builtin nohup setsid busybox bunx pnpm-dlx unbuffer nocorrect noglob caffeinate firejail valgrind capsh': {},
  'proxychains proxychains4 torsocks catchsegv linux32 linux64 i386 x86_64': {},
  sudo: {
    valueOpts: names(`-u --user -g --group -C --close-from -h --host -p --prompt -r --role -t --type -U --other-user
      -D --chdir -T --command-timeout`),
    // `sudo -k CMD` forgets the cached credentials and then runs CMD; -K takes no command.
    lookupOnly: ['-l', '--list', '-v', '--validate', '-K', '--remove-timestamp'],
    assignments: true,
  },
  doas: { valueOpts: ['-u', '-C'] },
  pkexec: { valueOpts: ['--user'], shell: true },
  run0: { valueOpts: ['-u', '--user'], shell: true },
  env: { valueOpts: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'], assignments: true },
  command: { lookupOnly: ['-v', '-V'] },
  exec: { valueOpts: ['-a'] },
  nice: { valueOpts: ['-n', '--adjustment'] },
  // bash's `time` keyword takes assignments before the command it times (`time X=1 cmd`).
  time: { valueOpts: ['-f', '--format', '-o', '--output'], assignments: true },
  stdbuf: { valueOpts: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { valueOpts: ['-c', '--class', '-n', '--classdata', '-p', '--pid'] },
  timeout: { valueOpts: ['-s', '--signal', '-k', '--kill-after'], skip: 1 },
  xargs: {
    valueOpts: names(`-I -n -P -d -L -E -s -a --arg-file --delimiter --max-args --max-procs --max-lines --eof
      --max-chars`),
  },
  chroot: { valueOpts: ['--userspec', '--groups'], skip: 1, shell: true },
  flock: { valueOpts: ['-w', '--timeout', '-E', '--conflict-exit-code'], skip: 1, commandOpts: ['-c', '--command'] },
  npx: { valueOpts: ['-p', '--package'], commandOpts: ['-c', '--call'] },
  'taskset chrt': { skip: 1 },
  strace: { valueOpts: ['-o', '-e', '-p', '-s', '-u', '-E'] },
  ltrace: { valueOpts: ['-o', '-e', '-p', '-s', '-u'] },
  runuser: { valueOpts: ['-u', '--user', '-g', '--group', '-G', '--supp-group'], shell: true },
  'systemd-run': {
    valueOpts: names(`-u --unit -p --property -E --setenv --uid --gid --working-directory -M --machine --description
      --slice -H --host`),
  },
  nsenter: { valueOpts: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '--wd', '-r', '--root'], shell: true },
  sshpass: { valueOpts: ['-p', '-f', '-d', '-P'] },
  unshare: { valueOpts: names('-R --root -w --wd -S --setuid -G --setgid --map-user --map-group'), shell: true },
  setpriv: {
    valueOpts: names(`--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits --pdeathsig
      --selinux-label --apparmor-profile --landlock-access --landlock-rule --seccomp-filter`),
  },
  setarch: { valueOpts: ['--uname-2.6'], skip: 1 },
  prlimit: { valueOpts: ['-p', '--pid', '-o', '--output'] },
  numactl: { valueOpts: names('-C --physcpubind -N --cpunodebind -m --membind -p --preferred -i --interleave') },
  fakeroot: { valueOpts: ['-l', '--lib', '--faked', '-s', '-i'] },
  fakechroot: { valueOpts: ['-l', '--lib', '-d', '--elfloader', '-c', '--config-dir', '-e', '--environment'] },
  faketime: { valueOpts: ['-m', '-p', '-f'], skip: 1 },
  cgexec: { valueOpts: ['-g'] },
  chpst: { valueOpts: ['-u', '-U', '-b', '-e', '-/', '-C', '-n', '-l', '-L', '-m', '-d', '-o', '-p', '-f', '-c'] },
  'dbus-run-session': { valueOpts: ['--config-file', '--dbus-daemon'] },
  'xvfb-run': { valueOpts: names('-n --server-num -e --error-file -f --auth-file -s --server-args -p') },
  'flatpak-spawn': { valueOpts: ['--env', '--directory', '--forward-fd'] },
  /** The dynamic loader run as a program (`/lib64/ld-linux-x86-64.so.2 PROG ARGS`): see `LD_SO`. */
  'ld.so': {
    valueOpts: names(`--library-path --preload --audit --argv0 --inhibit-rpath --glibc-hwcaps-prepend
      --glibc-hwcaps-mask`),
    lookupOnly: ['--list', '--verify', '--list-tunables', '--list-diagnostics'],
  },
});

/**
 * The dynamic loader under any of its names (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld.so, ld-musl-x86_64.so.1,
 * ld-2.31.so, ld64.so.2): run as a program it loads and runs the program named by its first operand.
 */
export const LD_SO =
  /^(ld-linux[\w.-]*\.so(\.[\d.]+)?|ld\.so(\.[\d.]+)?|ld64\.so(\.[\d.]+)?|ld-musl-[\w.-]+\.so(\.[\d.]+)?|ld-[\d.]+\.so)$/;

const wrapperKey = (name: string): string => (LD_SO.test(name) ? 'ld.so' : name);

interface Peeled {
  argv: Argv | null;
  /** `env -S STRING`: a whole command line in one argument. */
  splitString?: string;
  /** `sudo -s`, `sudo -i`, `doas -s`, a `shell` wrapper without a command: a shell that reads its standard input. */
  shell?: boolean;
  /** `env -C DIR`, `sudo -D DIR`: the directory the command runs in. */
  chdir?: Word;
}

/** Options that open the wrapper's shell (`sudo -i`, `sudo --login`, `doas -s`) when no command follows. */
const SHELL_OPTIONS = keyTable<RegExp>({ sudo: /^(-[a-zA-Z]*[si]|--login$|--shell$)/, doas: /^-[a-zA-Z]*s/ });
const CHDIR_OPTS = keyTable<string[]>({ env: ['-C', '--chdir'], sudo: ['-D', '--chdir'], nsenter: ['--wd'] });

function nameOf(word: Word): string | null {
  if (word.dynamic || word.pattern || word.text === '') return null;
  return word.text.slice(word.text.lastIndexOf('/') + 1); // the base name
}

/** Removes wrappers from the front of a command until the command that really runs; null when nothing runs. */
export function peel(words: Word[]): Peeled {
  let rest = words;
  let viaXargs = false;
  let chdir: Word | undefined;
  // Each pass removes at least one word, so wrappers stacked any number deep are all removed.
  while (rest.length > 0) {
    const name = nameOf(rest[0]!);
    if (name === null || !Object.hasOwn(WRAPPERS, wrapperKey(name))) break;
    const spec = WRAPPERS[wrapperKey(name)]!;
    // capsh runs /bin/bash with the words after `--` (`capsh --caps=... -- -c CMD`); without `--` it runs nothing else.
    if (name === 'capsh') {
      const dd = rest.findIndex((w) => w.text === '--');
      if (dd < 0) return { argv: null };
      rest = [literal('bash'), ...rest.slice(dd + 1)];
      continue;
    }
    // runuser/su style with -c: judged by its own check, which reads the command string.
    if (name === 'runuser' && rest.some((w) => w.text === '-c' || w.text.startsWith('--command'))) break;
    if (name === 'xargs') viaXargs = true;
    let shellOption = false;
    let i = 1;
    let skip = spec.skip ?? 0;
    for (; i < rest.length; i += 1) {
      const t = rest[i]!.text;
      if (t === '--') {
        i += 1 + skip; // `timeout -- 5 CMD`: the operands to skip come after `--`
        break;
      }
      // `timeout --help`, `runuser --version` before any operand: the wrapper prints and exits, running nothing.
      const info = (t === '--help' || t === '--version') && skip === (spec.skip ?? 0);
      if (spec.lookupOnly?.includes(t) || info) return { argv: null };
      if (spec.commandOpts?.includes(t)) return { argv: null, splitString: rest[i + 1]?.text ?? '' };
      // -S STRING, -SSTRING, -iS STRING, --split-string[=]STRING: the rest of the option word or the next word is a
      // command line.
      const splitShort = name === 'env' && /^-[a-zA-Z]*S/.test(t);
      if (splitShort || (name === 'env' && t.startsWith('--split-string'))) {
        const eq = t.indexOf('=');
        const attached = splitShort ? t.slice(t.indexOf('S') + 1) || undefined : eq >= 0 ? t.slice(eq + 1) : undefined;
        const words = attached === undefined ? rest.slice(i + 1) : [literal(attached), ...rest.slice(i + 1)];
        return { argv: null, splitString: words.map((w) => w.text).join(' ') };
      }
      if (name === 'env' && t === '-') continue;
      if (t.startsWith('-') && t.length > 1 && !rest[i]!.dynamic) {
        if (SHELL_OPTIONS[name]?.test(t)) shellOption = true;
        if (t.startsWith('--')) {
          const opt = t.split('=')[0]!;
          if (CHDIR_OPTS[name]?.includes(opt))
            chdir = t.includes('=') ? { ...rest[i]!, text: t.slice(t.indexOf('=') + 1) } : rest[i + 1];
          if (spec.valueOpts?.includes(opt) && !t.includes('=')) i += 1;
          continue;
        }
        // Combined short options (-Eu root): a value option takes the rest of the word, or the next word.
        for (let j = 1; j < t.length; j += 1) {
          if (spec.valueOpts?.includes(`-${t[j]}`)) {
            const value = j === t.length - 1 ? rest[i + 1] : { ...rest[i]!, text: t.slice(j + 1) };
            if (CHDIR_OPTS[name]?.includes(`-${t[j]}`)) chdir = value;
            if (j === t.length - 1) i += 1;
            break;
          }
        }
        continue;
      }
      // env and sudo take any word holding `=` as a variable, not only a shell name (`BASH_FUNC_ls%%=...`).
      if (spec.assignments && /^[^=]+=/.test(t)) continue;
      if (skip > 0) {
        skip -= 1;
        continue;
      }
      break;
    }
    rest = rest.slice(i);
    if (rest.length === 0 && (shellOption || spec.shell)) return { argv: null, shell: true };
    // `env` alone prints the environment (a command of its own, e.g. upstream of `| curl -d @-`).
    if (rest.length === 0 && name === 'env') return { argv: { name: 'env', written: 'env', args: [], viaXargs } };
  }
  if (rest.length === 0) return { argv: null };
  const first = rest[0]!;
  return { argv: { name: nameOf(first), written: first.text, args: rest.slice(1), viaXargs }, chdir };
}

/** An argv built from plain strings (nested commands such as `docker exec C rm -rf /`). */
export const words = (texts: string[]): Word[] => texts.map(literal);
