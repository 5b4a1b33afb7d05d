// What a program's calls would run, independent of its language: a call's qualified name and its folded literal
// arguments become shell command lines, argument vectors, nested code, or "computed" (asks). Pure.
import { keyTable, names } from '../../engine/names.js';

/** A folded expression: known text, a number, a list, a flag, an object of known keys, or unknown. */
export type Value =
  | { kind: 'str'; v: string }
  | { kind: 'num'; v: number }
  | { kind: 'bool'; v: boolean }
  | { kind: 'list'; items: Value[] }
  | { kind: 'obj'; keys: Record<string, Value> }
  /**
   * `text`: the source, for the finding; `child`: the pid of a process the program started (`p.pid`, `os.getpid()`);
   * `tail`: the literal text it is known to end with (`f'{d}/notes.txt'` ends with `/notes.txt`).
   */
  | { kind: 'unknown'; text: string; child?: boolean; tail?: string };

/** One call of interest in a program. */
export interface ProgramCall {
  /** Qualified through imports and aliases: `subprocess.run`, `child_process.exec`, `os.kill`. */
  name: string;
  args: Value[];
  keywords: Record<string, Value>;
  /** The call as written, shortened, for the finding. */
  text: string;
}

/** What a started program reads on standard input: literal text, or (null) something known only at run time. */
export type ProgramStdin = string | null;

export type ProgramEffect =
  | { kind: 'shell'; text: string; stdin?: ProgramStdin }
  /** An argument vector; null stands for an argument computed at run time (the program name never is). */
  | { kind: 'argv'; words: (string | null)[]; stdin?: ProgramStdin }
  | { kind: 'code'; language: string; text: string }
  | { kind: 'computed'; detail: string }
  /** A module the program imports (`level`: Python's leading dots), or a file it runs or adds to its module path. */
  | { kind: 'load'; language: string; how: 'import'; module: string; level: number; names: string[] }
  | { kind: 'load'; language: string; how: 'file'; path: string }
  | { kind: 'load'; language: string; how: 'root'; path: string };

/** Stands for the program's own file (`__file__`, `import.meta.url`) in a folded path, until it is known. */
export const OWN_FILE = '\u0001';

export const unknown = (text: string, child = false, tail?: string): Value => ({
  kind: 'unknown',
  text: text.length > 80 ? `${text.slice(0, 77)}...` : text,
  ...(child ? { child } : {}),
  ...(tail !== undefined && tail !== '' ? { tail } : {}),
});

/** The literal text a value ends with: all of a string, the known tail of a partly computed one. */
export const tailOf = (v: Value | undefined): string =>
  v?.kind === 'str' ? v.v : v?.kind === 'unknown' ? (v.tail ?? '') : '';

/** Paths joined as os.path.join and Node's path.join do: a later absolute part starts again; an unknown part leaves the known tail. */
export function joinPaths(parts: Value[], text: string): Value {
  let out: string | undefined = '';
  let tail = '';
  for (const p of parts) {
    if (p.kind !== 'str') {
      out = undefined;
      tail = tailOf(p);
      continue;
    }
    if (out === undefined) tail = p.v.startsWith('/') ? p.v : `${tail}/${p.v}`;
    else out = p.v.startsWith('/') || out === '' ? p.v : `${out}/${p.v}`;
  }
  return out === undefined ? unknown(text, false, tail) : { kind: 'str', v: out };
}

const str = (v: Value | undefined): string | undefined =>
  v?.kind === 'str' ? v.v : v?.kind === 'num' ? String(v.v) : undefined;

function strings(v: Value | undefined): string[] | undefined {
  if (v?.kind !== 'list') return undefined;
  const out = v.items.map(str);
  return out.every((s): s is string => s !== undefined) ? out : undefined;
}

/** A list whose program name is known; other items may be computed (null). */
function argvOf(v: Value | undefined): (string | null)[] | undefined {
  if (v?.kind !== 'list' || v.items.some((i) => i.kind === 'unknown' && i.text.startsWith('*'))) return undefined;
  const out = v.items.map((i) => str(i) ?? null);
  return out.length > 0 && out[0] !== null ? out : undefined;
}

/** Whether a value is true as Python and JavaScript test it; undefined when it is known only at run time. */
function truthy(v: Value | undefined): boolean | undefined {
  if (v === undefined) return false;
  if (v.kind === 'bool') return v.v;
  if (v.kind === 'unknown') return undefined;
  if (v.kind === 'str') return v.v !== '';
  return v.kind === 'num' ? v.v !== 0 : true;
}

const SIGNALS = keyTable<number>({
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGTERM: 15,
  SIGCONT: 18,
  SIGSTOP: 19,
});

/** The signal a kill call sends; SIGTERM when it names none. */
function signalOf(v: Value | undefined): string | undefined {
  if (v === undefined) return '15';
  if (v.kind === 'num') return String(v.v);
  if (v.kind === 'str') return v.v.replace(/^SIG/, '');
  if (v.kind === 'unknown') {
    const m = /(SIG[A-Z0-9]+)$/.exec(v.text);
    return m && Object.hasOwn(SIGNALS, m[1]!) ? String(SIGNALS[m[1]!]) : undefined;
  }
  return undefined;
}

/** How the arguments of one kind of call are read. */
type Reader = (c: ProgramCall) => ProgramEffect[];

/** `what` of the call written as `c.text` is known only at run time: it asks. */
export const computed = (c: { text: string }, what = 'its command'): ProgramEffect[] => [
  { kind: 'computed', detail: `${c.text}: ${what} is computed at run time` },
];

/** A whole command line for a shell. */
const shellText: Reader = (c) => {
  const s = str(c.args[0]);
  return s === undefined ? computed(c) : [{ kind: 'shell', text: s }];
};

/** The same effects with `stdin` (when it is given) as what their programs read. */
function feeding(effects: ProgramEffect[], stdin: ProgramStdin | undefined): ProgramEffect[] {
  if (stdin === undefined) return effects;
  return effects.map((e) => (e.kind === 'shell' || e.kind === 'argv' ? { ...e, stdin } : e));
}

/** No input at all: Python's None and DEVNULL, Node's 'ignore' and 'inherit' (the program's own, empty, input). */
const NO_INPUT = /^(None|(subprocess\.|asyncio\.subprocess\.)?DEVNULL|'(ignore|inherit)'|"(ignore|inherit)")$/;

/** Python's `input=` (text the child reads) and `stdin=` (a pipe or file it reads): literal text, or computed. */
function pythonStdin(c: ProgramCall): ProgramStdin | undefined {
  const input = c.keywords.input;
  if (input !== undefined) return str(input) ?? null;
  const stdin = c.keywords.stdin;
  if (stdin === undefined || (stdin.kind === 'unknown' && NO_INPUT.test(stdin.text))) return undefined;
  return null;
}

/** Node's `{ input }` (sync calls) and, for a child started in the background, the pipe its parent writes to. */
function nodeStdin(options: Value | undefined, background: boolean): ProgramStdin | undefined {
  const keys = options?.kind === 'obj' ? options.keys : {};
  if (keys.input !== undefined) return str(keys.input) ?? null;
  const stdio = keys.stdio?.kind === 'list' ? keys.stdio.items[0] : (keys.stdin ?? keys.stdio);
  if (stdio?.kind === 'str') return stdio.v === 'pipe' && background ? null : undefined;
  if (stdio !== undefined && !(stdio.kind === 'unknown' && NO_INPUT.test(stdio.text))) return null;
  return background && options?.kind !== 'unknown' ? null : undefined;
}

/** subprocess.run(args, shell=...): a list is an argv; a string is a command line with shell=True, a program otherwise. */
const subprocessLike: Reader = (c) => feeding(subprocessEffects(c), pythonStdin(c));

function subprocessEffects(c: ProgramCall): ProgramEffect[] {
  const first = c.args[0] ?? c.keywords.args;
  const words = strings(first);
  const shell = truthy(c.keywords.shell);
  if (words) return shell ? [{ kind: 'shell', text: words.join(' ') }] : [{ kind: 'argv', words }];
  const partly = shell === false ? argvOf(first) : undefined;
  if (partly) return [{ kind: 'argv', words: partly }];
  const s = str(first);
  if (s === undefined || shell === undefined) return computed(c);
  return shell ? [{ kind: 'shell', text: s }] : [{ kind: 'argv', words: [s] }];
}

/** asyncio.create_subprocess_exec(program, *args, stdin=...): the program, then its arguments (no argv[0]). */
const programThenArgs: Reader = (c) => {
  const words = c.args.map(str);
  if (words[0] === undefined || c.args.some((a) => a.kind === 'unknown' && a.text.startsWith('*'))) return computed(c);
  return feeding([{ kind: 'argv', words: words.map((w) => w ?? null) }], pythonStdin(c));
};

/** execFile(file, [args]) / spawn(cmd, [args], {shell}) / execa(cmd, [args]); `background`: not a Sync call. */
const fileAndArgs =
  (background: boolean): Reader =>
  (c) =>
    feeding(fileAndArgsEffects(c), nodeStdin(optionsOf(c), background));

/** The options object of a Node call (`{ shell: true, stdio: ... }`). */
const optionsOf = (c: ProgramCall): Value | undefined => c.args.find((a) => a.kind === 'obj');

function fileAndArgsEffects(c: ProgramCall): ProgramEffect[] {
  const file = str(c.args[0]);
  const options = optionsOf(c);
  const shell = options?.kind === 'obj' ? truthy(options.keys.shell) : false;
  const listed =
    c.args[1] === undefined || c.args[1].kind === 'obj' ? [] : c.args[1].kind === 'list' ? c.args[1].items : undefined;
  if (file === undefined || listed === undefined || shell === undefined) return computed(c);
  const rest = listed.map((i) => str(i) ?? null);
  if (shell) return rest.some((r) => r === null) ? computed(c) : [{ kind: 'shell', text: [file, ...rest].join(' ') }];
  return listed.some((i) => i.kind === 'unknown' && i.text.startsWith('...'))
    ? computed(c)
    : [{ kind: 'argv', words: [file, ...rest] }];
}

/** A list of words as one argument (Bun.spawn([...]), pty.spawn([...]) or pty.spawn('prog')). */
const argvList: Reader = (c) => {
  const words = argvOf(c.args[0]) ?? (str(c.args[0]) !== undefined ? [str(c.args[0])!] : undefined);
  return words ? [{ kind: 'argv', words }] : computed(c);
};

/** os.execl(path, arg0, arg1, ...) / os.execv(path, [arg0, ...]); `skip` leading arguments (spawn's mode), `env`: the last one is the environment. */
const execFamily =
  (listForm: boolean, skip: number, env: boolean): Reader =>
  (c) => {
    const args = c.args.slice(skip, env ? -1 : undefined);
    const path = str(args[0]);
    const rest = listForm ? strings(args[1]) : args.slice(1).map(str);
    if (path === undefined || rest === undefined || rest.some((r) => r === undefined)) return computed(c);
    return [{ kind: 'argv', words: [path, ...(rest as string[]).slice(1)] }];
  };

/** kill(pid, sig): `kill -SIG PID`. The pid of a child the program started, or its own, is its own business. */
const kill =
  (group: boolean): Reader =>
  (c) => {
    const pid = c.args[0];
    const sig = signalOf(c.args[1]);
    if (pid?.kind === 'unknown' && pid.child) return [];
    if (pid?.kind !== 'num' || sig === undefined) return computed(c, 'the process it signals');
    return [{ kind: 'argv', words: ['kill', `-${sig}`, String(group ? -Math.abs(pid.v) : pid.v)] }];
  };

/** shutil.rmtree(path) / fs.rmSync(path, {recursive: true}): `rm -rf -- PATH`. */
const recursiveDelete =
  (needsRecursive: boolean): Reader =>
  (c) => {
    const options = c.args[1];
    const recursive = !needsRecursive || (options?.kind === 'obj' && truthy(options.keys.recursive));
    if (recursive === false) return [];
    const path = str(c.args[0]);
    if (path === undefined || recursive === undefined) return computed(c, 'the path it deletes recursively');
    return [{ kind: 'argv', words: ['rm', '-rf', '--', path] }];
  };

const code =
  (language: string): Reader =>
  (c) => {
    const s = str(c.args[0]);
    return s === undefined ? computed(c, 'the code it runs') : [{ kind: 'code', language, text: s }];
  };

/**
 * A file name that nothing runs without reading it first when it runs: it has an extension (hooks, `config`,
 * `Makefile` and start-up files have none or start with a dot) and is not one Python runs at start (`.pth`,
 * sitecustomize). A computed path whose name is known to be one of these is not asked about.
 */
const INERT_NAME = /^(?![.])(?!(site|user)customize\.py$)[^/]*\.(?!pth$)[A-Za-z0-9]{1,8}$/;

/**
 * A file the program writes at a known path, judged as the shell redirect that writes it (`: > PATH`): writing a git
 * hook, .git/config or a shell start-up file asks as it does from the command line. A path computed at run time asks
 * unless its known end makes it a file that is read before it runs (`f'{out}/report.json'`).
 */
const writes =
  (at: number, python = false): Reader =>
  (c) => {
    if (python) {
      const mode = str(c.args[1] ?? c.keywords.mode) ?? ((c.args[1] ?? c.keywords.mode) ? undefined : 'r');
      if (mode !== undefined && !/[wax+]/.test(mode)) return [];
    }
    const target = c.args[at] ?? c.keywords.dst ?? c.keywords.file;
    const path = str(target);
    if (path !== undefined) return [{ kind: 'shell', text: `: > '${path.replace(/'/g, `'\\''`)}'` }];
    if (target === undefined) return [];
    const tail = tailOf(target);
    const inert = tail.includes('/')
      ? INERT_NAME.test(tail.slice(tail.lastIndexOf('/') + 1))
      : /\.(?!pth$)[A-Za-z0-9]{1,8}$/.test(tail) && !/customize\.py$/.test(tail);
    return inert ? [] : computed(c, 'the path it writes');
  };

/** Calls that run commands, delete trees or signal processes, by qualified name. */
export const SPAWNERS: Record<string, Reader> = keyTable({
  // Python
  'os.system subprocess.getoutput subprocess.getstatusoutput commands.getoutput asyncio.create_subprocess_shell':
    shellText,
  // os.popen(cmd, 'w'): the program writes the command's input later (`p.write(x)`), not known here.
  'os.popen': (c) => {
    const mode = c.args[1] ?? c.keywords.mode;
    return mode === undefined || /^r/.test(str(mode) ?? 'w') ? shellText(c) : feeding(shellText(c), null);
  },
  'subprocess.run subprocess.call subprocess.check_call subprocess.check_output subprocess.Popen': subprocessLike,
  'asyncio.create_subprocess_exec': programThenArgs,
  'pty.spawn': argvList,
  'os.execl os.execlp': execFamily(false, 0, false),
  'os.execle os.execlpe': execFamily(false, 0, true),
  'os.execv os.execvp': execFamily(true, 0, false),
  'os.execve os.execvpe': execFamily(true, 0, true),
  'os.spawnl os.spawnlp': execFamily(false, 1, false),
  'os.spawnv os.spawnvp': execFamily(true, 1, false),
  'os.spawnve os.spawnvpe': execFamily(true, 1, true),
  'os.posix_spawn os.posix_spawnp': execFamily(true, 0, true),
  'os.kill': kill(false),
  'os.killpg': kill(true),
  'shutil.rmtree': recursiveDelete(false),
  'open io.open': writes(0, true),
  'shutil.copy shutil.copy2 shutil.copyfile shutil.move os.symlink os.link shutil.copytree os.rename os.replace':
    writes(1),
  'exec eval builtins.exec builtins.eval __builtins__.exec __builtins__.eval': code('python'),
  // JavaScript
  'child_process.exec execa.execaCommand execa.execaCommandSync': shellText,
  'child_process.execSync': (c) => feeding(shellText(c), nodeStdin(c.args[1], false)),
  'child_process.execFile child_process.spawn execa execa.execa': fileAndArgs(true),
  'child_process.execFileSync child_process.spawnSync execaSync execa.execaSync': fileAndArgs(false),
  'child_process.fork': (c) =>
    str(c.args[0]) === undefined ? computed(c) : [{ kind: 'argv', words: ['node', str(c.args[0])!] }],
  'Bun.spawn Bun.spawnSync': argvList,
  'process.kill': kill(false),
  'fs.rmSync fs.rm fs.rmdirSync fs.rmdir fs.promises.rm fs.promises.rmdir fs/promises.rm fs/promises.rmdir':
    recursiveDelete(true),
  'fs.writeFileSync fs.writeFile fs.appendFileSync fs.appendFile fs.promises.writeFile fs.promises.appendFile fs/promises.writeFile fs/promises.appendFile fs.createWriteStream':
    writes(0),
  'fs.copyFileSync fs.copyFile fs.renameSync fs.symlinkSync fs.cpSync fs.cp fs.promises.cp fs.promises.copyFile fs/promises.cp fs/promises.copyFile fs.linkSync fs.link fs.rename fs.symlink':
    writes(1),
  // vm runs code given as text, like eval.
  'js.eval vm.runInThisContext vm.runInNewContext vm.runInContext vm.Script vm.compileFunction vm.SourceTextModule':
    code('javascript'),
  'js.Function': (c) => (c.args.length === 0 ? [] : code('javascript')({ ...c, args: [c.args.at(-1)!] })),
});

/** Names of modules whose functions spawn, delete or signal: a computed lookup on one of them asks. */
export const DANGEROUS_MODULES = new Set(
  names(`os subprocess pty shutil asyncio commands child_process execa fs fs/promises vm`),
);

const WRITE_FUNCTIONS =
  /^(open|io\.open|shutil\.(copy|copy2|copyfile|copytree|move)|os\.(symlink|link|rename|replace)|fs(\.promises|\/promises)?\.(writeFile|appendFile|copyFile|cp|link|rename|symlink|createWriteStream)(Sync)?)$/;

/** A function that runs commands or code, deletes trees or signals processes (not one that only writes a file). */
export const runsSomething = (name: string): boolean => Object.hasOwn(SPAWNERS, name) && !WRITE_FUNCTIONS.test(name);

/**
 * A call's keyword for what the program writes into the process the call starts, in the same expression
 * (`os.popen('sh', 'w').write(x)`, `spawn('sh').stdin.end(x)`): that process's standard input.
 */
export const FED_INPUT = '<stdin>';

/** The effects of one call, or none when it is not a call of interest. */
export function effectsOf(call: ProgramCall): ProgramEffect[] {
  if (call.name.endsWith('.<computed>')) return computed(call, 'the function it calls');
  if (!Object.hasOwn(SPAWNERS, call.name)) return [];
  const out = SPAWNERS[call.name]!(call);
  const fed = call.keywords[FED_INPUT];
  return fed === undefined ? out : feeding(out, str(fed) ?? null);
}
