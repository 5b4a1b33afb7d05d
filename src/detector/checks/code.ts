// Looks inside interpreter one-liners (python -c, node -e, perl -e, ruby -e, php -r, awk programs): shell
// commands they run, recursive deletes, fork bombs, reverse shells, downloaded code they execute. Pure.
import { keyTable } from '../engine/names.js';
import { classifyPath, classifyWrite } from '../engine/paths.js';
import { isAgentSettings } from './agents.js';
import { literal } from '../engine/words.js';
import { isCredentialPath } from './exfil.js';
import { shownSecretPath } from './secret-read.js';
import { forgeCode } from './forge.js';
import { codeResourceAbuse } from './resource-abuse.js';
import { shortened, type CheckContext } from './types.js';

/** Calls that hand a string to a shell. */
const SHELL_CALL =
  /(?<!\/\.)\b(?:system|popen|exec|execSync|spawnSync|execFileSync|shell_exec|passthru|check_output|check_call|call|run|Popen|getoutput|getstatusoutput|spawn|proc_open|IO\.popen|Open3\.\w+|os\.execute|io\.popen)\s*\(?\s*[rfbu]?(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
/** The same with a list of arguments: subprocess.run(["rm", "-rf", "/"]). */
const LIST_CALL =
  /\b(?:check_output|check_call|call|run|Popen|execvp?|spawnSync|spawn|execFileSync|execFile)\s*\(\s*\[([^\]]*)\]/g;
/** Backticks and %x{} run shell commands in perl, ruby and php. */
const BACKTICKS = /`([^`]+)`|%x\{([^}]+)\}|\bqx[{(/]([^})/]+)[})/]/g;
/** awk: system("...") and print | "sh". */
const AWK_PIPE = /\|\s*"(sh|bash|\/bin\/sh|\/bin\/bash)"/;

const RECURSIVE_DELETE =
  /shutil\.rmtree|os\.removedirs|\.rm(?:Sync)?\s*\([\s\S]{0,300}recursive|rmdirSync\s*\([\s\S]{0,300}recursive|\brimraf\b|File::Path|\brmtree\b|remove_tree|FileUtils\.(rm_r|rm_rf|remove_dir|remove_entry)|Deno\.remove\s*\([\s\S]{0,300}recursive|Bun\.\$`rm/;
/** The path a recursive delete is given, when it is a string literal. */
const DELETE_TARGET =
  /(?:rmtree|removedirs|\.rm(?:Sync)?|rmdirSync|rimraf(?:\.sync)?|remove_tree|rm_rf?|remove_dir|remove_entry|Deno\.remove)\s*\(\s*\[?\s*(["'])([^"'\\]+)\1/g;
const FORK_BOMB =
  /fork\s+while\s+(fork|1|true)|while\s*\(?\s*(1|true|True)\s*\)?\s*[:{]?\s*(os\.)?fork\s*\(|(os\.)?fork\(\)\s*while|loop\s*\{\s*fork|while\s+True:\s*os\.fork/;
const SOCKET =
  /\bsocket\b|IO::Socket|TCPSocket|net\.connect|net\.Socket|fsockopen|require\(\s*["'](node:)?(net|tls)["']\s*\)|\/inet6?\/(tcp|udp)\//;
const SHELL_SPAWN = /pty\.spawn|\/bin\/(ba)?sh|dup2|subprocess|child_process|exec\s*\(|spawn\s*\(|\|&\s*getline/;
const DOWNLOAD =
  /urlopen|urllib\.request|requests\.get|\bfetch\s*\(|https?\.get|LWP::Simple|\bget\s*\(\s*["']https?:|open-uri|Net::HTTP|file_get_contents\s*\(\s*["']https?:/;
const RUNS_STRING = /\b(exec|eval|Function)\s*\(|\beval\b/;

const unescape = (s: string): string => s.replace(/\\(["'`\\])/g, '$1').replace(/\\n/g, '\n');

const STR = String.raw`(["'])((?:\\.|(?!\1)[^\\\n])*)\1`;
/** Two string literals joined by +, ., .. or nothing (awk, python): one literal. */
const CONCAT = new RegExp(
  String.raw`(["'])((?:\\.|(?!\1)[^\\\n])*)\1\s*(?:\+|\.\.|\.)?\s*(["'])((?:\\.|(?!\3)[^\\\n])*)\3`,
  'g',
);
/**
 * SEP.join([literals]), [literals].join(SEP), join(SEP, literals), implode(SEP, [literals]), %w[...].join(SEP): the
 * pattern, and its groups holding the separator and the list (a %w list is words, the others string literals).
 */
const JOINS: [RegExp, number, number][] = [
  [/(["'])([^"'\n]*)\1\.join\(\s*\[([^\]]*)\]\s*\)/g, 2, 3],
  [/\[([^\]]*)\]\.join\(\s*(["'])([^"'\n]*)\2\s*\)/g, 3, 1],
  [/%w\[([^\]]*)\]\.join\(\s*(["'])([^"'\n]*)\2\s*\)/g, 3, 1],
  [/\b(?:join|implode)\(\s*(["'])([^"'\n]*)\1\s*,\s*\[?([^\])]*)\]?\s*\)/g, 2, 3],
];

/** The contents of a comma-separated list of string literals; undefined when anything else is in it. */
function literals(list: string): string[] | undefined {
  const items = list
    .split(',')
    .filter((x) => x.trim() !== '')
    .map((x) => /^(["'])(.*)\1$/s.exec(x.trim()));
  return items.every((m) => m !== null) ? items.map((m) => m[2]!) : undefined;
}

/** Joins pieces of string literals the way the interpreter would, so that a command built from pieces can be read. */
export function collapse(code: string): string {
  let out = code;
  for (const [re, sep, list] of JOINS) {
    out = out.replace(re, (...args: unknown[]) => {
      const m = args.slice(0, -2) as string[];
      const parts = m[0]!.startsWith('%w') ? m[list]!.trim().split(/\s+/) : literals(m[list]!);
      return parts ? JSON.stringify(parts.join(m[sep]!)) : m[0]!;
    });
  }
  for (let i = 0; i < 32; i += 1) {
    const next = out.replace(CONCAT, (_all, q: string, a: string, _q2: string, b: string) => `${q}${a}${b}${q}`);
    if (next === out) break;
    out = next;
  }
  return out;
}

/** Calls that run a shell command or a program, per language. */
const SHELL_FN = keyTable<RegExp>({
  python:
    /(?:(?<![\w.])os\.(?:system|popen|exec\w*|spawn\w*)|\)\.(?:system|popen)|(?<![\w.])subprocess\.\w+|pty\.spawn)\s*\(/g,
  /** subprocess imported under another name (`import subprocess as s; s.call(...)`, `from subprocess import run`). */
  'python-subprocess': /(?:\w+\.|(?<![\w.]))(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)\s*\(/g,
  javascript: /(?:\.|\b)(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(|\$`/g,
  perl: /(?<![\w$>"'])(?:(?:system|exec|qx)\b(?=\s|\()|readpipe(?=[\s(;}]|$))\s*\(?/g,
  ruby: /(?<![\w."'])(?:system|exec|spawn|Kernel\.system|Kernel\.exec|IO\.popen|Open3\.\w+|%x)\b(?=\s|\()\s*\(?/g,
  php: /(?<![\w>])(?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec)\s*\(/g,
  lua: /\b(?:os\.execute|io\.popen)\s*\(?/g,
  awk: /\bsystem\s*\(/g,
});
/** Calls that run code given as a string. */
const EVAL_FN = /(?<![\w.])(?:exec|eval|compile|Function|instance_eval|class_eval|assert)\s*\(|\bnew\s+Function\b/g;
const SHELL_FN_NAME =
  /(getattr\s*\([^)]*,\s*|=\s*|\[\s*)(["'])(system|popen|exec|execSync|execFile|spawn|spawnSync|shell_exec|passthru|proc_open|check_output|getoutput)\2|send\(\s*:(system|exec|spawn|`)/;

/** The text of a call's arguments, up to the closing parenthesis (or the end of the statement without one). */
function argumentsAt(code: string, start: number, parenthesised: boolean): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < code.length && i < start + 600; i += 1) {
    const c = code[i]!;
    if (quote) {
      if (c === '\\') i += 1;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) {
      if (depth === 0 && parenthesised) return code.slice(start, i);
      depth -= 1;
    } else if ((c === ';' || c === '\n') && depth === 0 && !parenthesised) return code.slice(start, i);
  }
  return code.slice(start, start + 600);
}

/** Arguments made only of string literals, lists of them and keyword options (shell=True, {stdio: 'inherit'}). */
function onlyLiterals(args: string): boolean {
  if (/\$\{|#\{|\bf(["'])[^"']*\{/.test(args)) return false;
  const rest = args
    .replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, 'S')
    .replace(/\{[^{}]*\}/g, 'S')
    // A keyword option's value (stdout=subprocess.PIPE, cwd=root) does not change the command; args= and executable= do.
    .replace(/\b(?!args\b|executable\b)\w+\s*=\s*(True|False|None|S|\d+|true|false|[A-Za-z_][\w.]*)/g, 'S')
    .replace(/%w\[[^\]]*\]/g, 'S');
  return /^[\sS,[\]()]*$/.test(rest);
}

const FILE_DELETE =
  /\bunlink\s+\w|\b(unlink|unlinkSync|remove|removeSync|rmSync|rmdir|rmdirSync|delete|deleteSync)\b\s*[("]|\bos\.(remove|unlink|rmdir)\b|"unlink"/;
/** `$ENV{HOME}`, `os.environ['HOME']`, `process.env.HOME`, `ENV['HOME']`, `Dir.home`, `getenv('HOME')` at a string's start. */
const HOME_PREFIX =
  /^(\$ENV\{HOME\}|\$HOME|\$\{HOME\}|#\{Dir\.home\}|#\{ENV\[.HOME.\]\}|\$\{process\.env\.HOME\}|\{os\.environ\[.HOME.\]\})(?=\/|$)/;
const PERMISSION_CALL =
  /\b(os\.(chmod|chown|lchown|fchmod)|chmodSync|chownSync|fs\.(chmod|chown)|File\.(chmod|chown)|FileUtils\.(chmod|chown)\w*|chmod|chown)\s*\(/;
const FILE_WRITE =
  /\bopen\s*\([^)]*,\s*(["'])[wax]\+?b?\1|\.write_(text|bytes)\s*\(|writeFileSync|writeFile\s*\(|appendFileSync|File\.(write|open\s*\([^)]*["'][wa])|file_put_contents|IO\.write|open\s*\(\s*\w+\s*,\s*["']?[>+]|json\.dump\s*\(/;
const SEND =
  /requests\.(post|put|patch)|urlopen|\bfetch\s*\(|https?\.request|Net::HTTP|\bsocket\b|IO::Socket|LWP|curl_exec|HTTP::Tiny|sendall|smtplib/;

const WHOLE_ENV =
  /\bos\.environ\b(?!\s*(\[|\.get\b|\.setdefault\b))|\bprocess\.env\b(?!\s*(\.|\[))|\bENV\.(to_h|to_a|to_s|inspect)\b|%ENV\b|\bgetenv\(\s*\)/;

/** Printing to the output; reading a file's content; a secret variable read by name. */
const PRINTS =
  /\bprint\s*\(|console\.(log|info|dir)\s*\(|process\.stdout\.write|\bputs\b|\bsay\b|\bprint\s+[$"'\w]|\becho\b|\bp\s+\w/;
const READS =
  /\bopen\s*\(|read_text|readFileSync|readFile\s*\(|File\.read|IO\.read|file_get_contents|\bslurp\b|<\$?\w*>/;
const SECRET_ENV =
  /(os\.environ|os\.getenv|process\.env|ENV|getenv)\s*(\[\s*|\.|\(\s*|\{)\s*["']?[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)/;

/** `"sh", "-c", "SCRIPT"` in a list of arguments (also bash, zsh, dash, /bin/sh): group 4 is the script. */
const SH_C_ARGUMENTS = /(["'])(?:\/bin\/)?(?:ba|z|da)?sh\1\s*,\s*(["'])-c\2\s*,\s*(["'])((?:\\.|(?!\3)[^\\])*)\3/g;

/** A shell or eval call whose argument is built at run time (joined, decoded, from variables): what runs cannot be read. */
function dynamicCalls(code: string, language: string, ctx: CheckContext, detail: string): void {
  const shell = SHELL_FN[language];
  const calls =
    shell && (language !== 'javascript' || /child_process|Bun\.\$|\$`/.test(code)) ? [...code.matchAll(shell)] : [];
  if (language === 'python' && /\bsubprocess\b/.test(code))
    calls.push(...code.matchAll(SHELL_FN['python-subprocess']!));
  for (const m of calls) {
    if (m[0] === '$`') continue; // a template literal is read like backticks
    const parenthesised = m[0].trimEnd().endsWith('(');
    const args = argumentsAt(code, m.index + m[0].length, parenthesised);
    // Perl's readpipe with no argument runs `$_`: the line just read.
    if (!onlyLiterals(args) || (m[0].startsWith('readpipe') && !/\S/.test(args)))
      return ctx.add('dynamic-command', `${detail} (the command is built at run time)`);
  }
  if (SHELL_FN_NAME.test(code)) ctx.add('dynamic-command', `${detail} (a shell function is called by a computed name)`);
  const evals = language === 'awk' || language === 'perl' ? [] : [...code.matchAll(EVAL_FN)];
  if (evals.some((m) => !onlyLiterals(argumentsAt(code, m.index + m[0].length, m[0].endsWith('(')))))
    return ctx.add('dynamic-command', `${detail} (code built at run time is evaluated)`);
  // perl/ruby backticks with interpolation; `sh -c` with a literal in an argument list.
  if ((language === 'perl' || language === 'ruby') && /`[^`]*(#\{|\$\w)[^`]*`/.test(code))
    ctx.add('dynamic-command', `${detail} (backticks run an interpolated command)`);
  for (const m of code.matchAll(SH_C_ARGUMENTS)) ctx.script(unescape(m[4]!));
}

/** A secret file under the home directory built from its spelling in code (`os.path.expanduser("~") + "/.ssh/id_rsa"`). */
const HOME_SECRET_FILE =
  /(HOME|homedir\(\)|expanduser\(["']~)[^\n]{0,40}["'`][^"'`]*\/\.(ssh\/id_|aws\/credentials|netrc|git-credentials|docker\/config\.json|kube\/config)/;

/** A Temporal client in code: the SDKs' client modules, or the server's gRPC service by name. */
const TEMPORAL_CLIENT =
  /@temporalio\/(client|worker|testing)|\btemporalio(\.client)?\b|go\.temporal\.io\/sdk\/client|temporal\.api\.workflowservice|WorkflowService/;
/** What tether's workflows take decisions by, and a run started without the gate. */
const APPROVAL_NAME = /["'`](approval|decideApproval)["'`]/;
const RUN_START = /["'`]agentWorkflow["'`]|approvalMode/;

export function analyseCode(source: string, written: string, ctx: CheckContext): void {
  const language = written === 'typescript' ? 'javascript' : written;
  const code = collapse(source);
  for (const m of code.matchAll(SHELL_CALL)) ctx.script(unescape(m[2]!));
  for (const m of code.matchAll(LIST_CALL)) {
    const parts = [...m[1]!.matchAll(/(["'])((?:\\.|(?!\1)[^\\])*)\1/g)].map((p) => unescape(p[2]!));
    if (parts.length > 0)
      ctx.script(parts.map((p) => (/^[\w./=:-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)).join(' '));
  }
  if (language !== 'python' && language !== 'javascript')
    for (const m of code.matchAll(BACKTICKS)) ctx.script(m[1] ?? m[2] ?? m[3]!);
  const detail = `${language} code: ${shortened(code)}`;
  if (language === 'awk' && AWK_PIPE.test(code)) ctx.add('dynamic-command', detail);
  if (RECURSIVE_DELETE.test(code)) {
    // A literal path inside the project is ordinary clean-up (shutil.rmtree('build')); anything else asks.
    const targets = [...code.matchAll(DELETE_TARGET)].map((m) => m[2]!.replace(HOME_PREFIX, '~'));
    const classes = targets.map((t) => classifyPath(literal(t), ctx.where));
    if (targets.length === 0 || classes.some((c) => c !== 'inside' && c !== 'temp'))
      ctx.add('interpreter-delete', detail);
    // delete-root, delete-home, delete-system-dir
    for (const c of classes) if (c === 'root' || c === 'home' || c === 'system-dir') ctx.add(`delete-${c}`, detail);
  }
  if (FORK_BOMB.test(code)) ctx.add('fork-bomb', detail);
  // String literals, with the interpreter's spelling of the home directory as `~` ($ENV{HOME}, os.environ['HOME'], ...).
  const literalTexts = [...code.matchAll(new RegExp(STR, 'g'))].map((m) => m[2]!);
  const strings = literalTexts.map((t) => t.replace(HOME_PREFIX, '~'));
  // Permissions and ownership (os.chmod, fs.chmodSync, File.chmod, chown): judged like chmod on the paths named.
  const systemPath = (p: string): boolean =>
    /^(root|home|system-dir|system-path)$/.test(classifyPath(literal(p), ctx.where));
  if (PERMISSION_CALL.test(code) && strings.some(systemPath)) ctx.add('system-permissions', detail);
  // Files opened for writing or written whole: system configuration and an agent's own settings.
  const writes = FILE_WRITE.test(code);
  if (writes && strings.some((p) => p.startsWith('/') && classifyWrite(literal(p), ctx.where) === 'system-config'))
    ctx.add('overwrite-system-config', detail);
  if ((writes || FILE_DELETE.test(code)) && strings.some(isAgentSettings)) ctx.add('agent-safety', detail);
  // Deleting files one by one (unlink, os.remove, glob): judged by the literal paths the code names.
  if (FILE_DELETE.test(code)) {
    const deleted = strings.map((p) => classifyPath(literal(p.replace(/\/?\*.*$/, '') || '/'), ctx.where));
    if (deleted.some((c) => ['root', 'home', 'system-dir', 'system-path', 'outside'].includes(c)))
      ctx.add('interpreter-delete', detail);
  }
  dynamicCalls(code, language, ctx, detail);
  const sends = SEND.test(code);
  const credentials = literalTexts.some((p) => isCredentialPath(p) || /(^|\/)\.(ssh|aws|kube|gnupg)\//.test(p));
  // Credential files named, or the whole environment (every token in it), not one variable read by name.
  if (((sends || DOWNLOAD.test(code)) && credentials) || (sends && WHOLE_ENV.test(code)))
    ctx.add('exfiltration', detail);
  // A credential file read and printed, a secret variable or the whole environment printed: shown to the model.
  if (PRINTS.test(code)) {
    const paths = strings.map((p) => p.replace(/^.*\/(home|Users)\/[^/]+\//, '~/'));
    const secretFile = paths.some((p) => shownSecretPath(p)) || HOME_SECRET_FILE.test(code);
    if ((secretFile && READS.test(code)) || WHOLE_ENV.test(code) || SECRET_ENV.test(code))
      ctx.add('secret-read', detail);
  }
  forgeCode(code, ctx, detail);
  codeResourceAbuse(source, ctx, detail);
  if (SOCKET.test(code) && SHELL_SPAWN.test(code)) ctx.add('reverse-shell', detail);
  if (DOWNLOAD.test(code) && RUNS_STRING.test(code)) ctx.add('remote-code-exec', detail);
  // Code that talks to tether's Temporal server: deciding an approval is refused, starting a run asks (as the CLI).
  if (TEMPORAL_CLIENT.test(code) && APPROVAL_NAME.test(code)) ctx.add('self-approval', detail);
  else if (TEMPORAL_CLIENT.test(code) && RUN_START.test(code)) ctx.add('control-plane', detail);
}
