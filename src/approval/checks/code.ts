// Looks inside interpreter one-liners (python -c, node -e, perl -e, ruby -e, php -r, awk programs): shell
// commands they run, recursive deletes, fork bombs, reverse shells, downloaded code they execute. Pure.
import { classifyPath } from '../paths.js';
import { literal } from '../words.js';
import type { CheckContext } from './types.js';

/** Calls that hand a string to a shell. */
const SHELL_CALL = /(?<!\/\.)\b(?:system|popen|exec|execSync|spawnSync|execFileSync|shell_exec|passthru|check_output|check_call|call|run|Popen|getoutput|getstatusoutput|spawn|proc_open|IO\.popen|Open3\.\w+|os\.execute|io\.popen)\s*\(?\s*[rfbu]?(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
/** The same with a list of arguments: subprocess.run(["rm", "-rf", "/"]). */
const LIST_CALL = /\b(?:check_output|check_call|call|run|Popen|execvp?|spawnSync|spawn|execFileSync|execFile)\s*\(\s*\[([^\]]*)\]/g;
/** Backticks and %x{} run shell commands in perl, ruby and php. */
const BACKTICKS = /`([^`]+)`|%x\{([^}]+)\}|\bqx[{(/]([^})/]+)[})/]/g;
/** awk: system("...") and print | "sh". */
const AWK_PIPE = /\|\s*"(sh|bash|\/bin\/sh|\/bin\/bash)"/;

const RECURSIVE_DELETE = /shutil\.rmtree|os\.removedirs|\.rm(?:Sync)?\s*\([\s\S]{0,300}recursive|rmdirSync\s*\([\s\S]{0,300}recursive|\brimraf\b|File::Path|\brmtree\b|remove_tree|FileUtils\.(rm_r|rm_rf|remove_dir|remove_entry)|Deno\.remove\s*\([\s\S]{0,300}recursive|Bun\.\$`rm/;
/** The path a recursive delete is given, when it is a string literal. */
const DELETE_TARGET = /(?:rmtree|removedirs|\.rm(?:Sync)?|rmdirSync|rimraf(?:\.sync)?|remove_tree|rm_rf?|remove_dir|remove_entry|Deno\.remove)\s*\(\s*\[?\s*(["'])([^"'\\]+)\1/g;
const FORK_BOMB = /fork\s+while\s+(fork|1|true)|while\s*\(?\s*(1|true|True)\s*\)?\s*[:{]?\s*(os\.)?fork\s*\(|(os\.)?fork\(\)\s*while|loop\s*\{\s*fork|while\s+True:\s*os\.fork/;
const SOCKET = /\bsocket\b|IO::Socket|TCPSocket|net\.connect|net\.Socket|fsockopen/;
const SHELL_SPAWN = /pty\.spawn|\/bin\/(ba)?sh|dup2|subprocess|child_process|exec\s*\(|spawn\s*\(/;
const DOWNLOAD = /urlopen|urllib\.request|requests\.get|\bfetch\s*\(|https?\.get|LWP::Simple|\bget\s*\(\s*["']https?:|open-uri|Net::HTTP|file_get_contents\s*\(\s*["']https?:/;
const RUNS_STRING = /\b(exec|eval|Function)\s*\(|\beval\b/;

function unescape(s: string): string {
  return s.replace(/\\(["'`\\])/g, '$1').replace(/\\n/g, '\n');
}

export function analyseCode(code: string, language: string, ctx: CheckContext): void {
  for (const m of code.matchAll(SHELL_CALL)) ctx.script(unescape(m[2]!));
  for (const m of code.matchAll(LIST_CALL)) {
    const parts = [...m[1]!.matchAll(/(["'])((?:\\.|(?!\1)[^\\])*)\1/g)].map((p) => unescape(p[2]!));
    if (parts.length > 0) ctx.script(parts.map((p) => (/^[\w./=:-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)).join(' '));
  }
  if (language !== 'python' && language !== 'javascript') {
    for (const m of code.matchAll(BACKTICKS)) ctx.script(m[1] ?? m[2] ?? m[3]!);
  }
  const detail = `${language} code: ${code.length > 80 ? `${code.slice(0, 77)}...` : code}`;
  if (language === 'awk' && AWK_PIPE.test(code)) ctx.add('dynamic-command', detail);
  if (RECURSIVE_DELETE.test(code)) {
    // A literal path inside the project is ordinary clean-up (shutil.rmtree('build')); anything else asks.
    const targets = [...code.matchAll(DELETE_TARGET)].map((m) => m[2]!);
    const classes = targets.map((t) => classifyPath(literal(t), ctx.where));
    if (targets.length === 0 || classes.some((c) => c !== 'inside' && c !== 'temp')) ctx.add('interpreter-delete', detail);
    for (const c of classes) if (c === 'root' || c === 'home' || c === 'system-dir') ctx.add(c === 'root' ? 'delete-root' : c === 'home' ? 'delete-home' : 'delete-system-dir', detail);
  }
  if (FORK_BOMB.test(code)) ctx.add('fork-bomb', detail);
  if (SOCKET.test(code) && SHELL_SPAWN.test(code)) ctx.add('reverse-shell', detail);
  if (DOWNLOAD.test(code) && RUNS_STRING.test(code)) ctx.add('remote-code-exec', detail);
}
