// Judges a shell command line: parses it with the bash grammar, visits every simple command wherever it sits
// (pipelines, lists, subshells, functions, loops, substitutions, here-documents, nested sh -c / eval / ssh),
// and reports findings with their tier. Pure once the parser is loaded (no I/O per command).
import { peel, type Argv } from './argv.js';
import { analyseCode } from './checks/code.js';
import { dataChecks } from './checks/data.js';
import { execChecks, pipelineShellOverNetwork, DOWNLOADERS, runsCode } from './checks/exec.js';
import { checkWrite, fileChecks } from './checks/files.js';
import { infraChecks } from './checks/infra.js';
import { systemCheckFor, systemChecks } from './checks/system.js';
import type { Check, CheckContext, Io, Upstream } from './checks/types.js';
import type { ParseBash, SyntaxNode } from './parser.js';
import { rule, type Tier } from './rules.js';
import { wordOf, type Word } from './words.js';

export interface Finding {
  rule: string;
  tier: Tier;
  description: string;
}

export interface Verdict {
  command: string;
  dangerous: boolean;
  /** The worst tier found; null when nothing was found. */
  tier: Tier | null;
  findings: Finding[];
}

export interface DetectOptions {
  /** The project directory: absolute paths inside it count as the project's own files. */
  cwd?: string;
}

const MAX_DEPTH = 8;

const named = (node: SyntaxNode): SyntaxNode[] => node.namedChildren.filter((c): c is SyntaxNode => c !== null);

function containsDownload(node: SyntaxNode): boolean {
  if (node.type === 'command') {
    const argv = peel(commandWords(node)).argv;
    if (argv?.name && DOWNLOADERS.has(argv.name)) return true;
  }
  return named(node).some(containsDownload);
}

const EXEC = execChecks(containsDownload);

function checkFor(name: string): Check | undefined {
  for (const table of [fileChecks, systemChecks, dataChecks, infraChecks]) if (Object.hasOwn(table, name)) return table[name];
  return systemCheckFor(name) ?? EXEC(name);
}

/** The words of a `command` node: its name and arguments, without assignments and redirects. */
function commandWords(node: SyntaxNode): Word[] {
  const out: Word[] = [];
  for (const child of named(node)) {
    if (child.type === 'variable_assignment' || child.type.endsWith('_redirect') || child.type === 'comment') continue;
    out.push(wordOf(child));
  }
  return out;
}

/** Redirects that apply to a command: its own, and those of a redirected_statement wrapping it. */
function redirectsOf(node: SyntaxNode): SyntaxNode[] {
  const own = named(node).filter((c) => c.type.endsWith('_redirect'));
  const parent = node.parent;
  if (parent?.type === 'redirected_statement' && parent.childForFieldName('body')?.id === node.id) {
    own.push(...named(parent).filter((c) => c.type.endsWith('_redirect')));
  }
  return own;
}

/** What the text an upstream pipeline element prints, when it is literal (echo, printf, cat <<EOF). */
function printedText(element: SyntaxNode, argv: Argv | null): string | undefined {
  if (!argv) return undefined;
  if ((argv.name === 'echo' || argv.name === 'printf') && argv.args.every((a) => !a.dynamic)) {
    return argv.args.filter((a) => !/^-[neE]+$/.test(a.text)).map((a) => a.text).join(' ');
  }
  if (argv.name === 'cat' && argv.args.length === 0) {
    const cmd = element.type === 'command' ? element : named(element).find((c) => c.type === 'command');
    return cmd ? stdinTextOf(redirectsOf(cmd)) : undefined;
  }
  return undefined;
}

function stdinTextOf(redirects: SyntaxNode[]): string | undefined {
  for (const r of redirects) {
    if (r.type === 'heredoc_redirect') return named(r).find((c) => c.type === 'heredoc_body')?.text ?? '';
    if (r.type === 'herestring_redirect') {
      const w = named(r)[0];
      return w ? wordOf(w).text : '';
    }
  }
  return undefined;
}

function firstCommand(element: SyntaxNode): SyntaxNode | undefined {
  if (element.type === 'command') return element;
  for (const c of named(element)) {
    const found = firstCommand(c);
    if (found) return found;
  }
  return undefined;
}

/** The elements of a pipeline, with nested pipelines (`a | b 2>&1 | c` parses as one inside another) flattened. */
function pipelineLeaves(pipeline: SyntaxNode): SyntaxNode[] {
  return named(pipeline).flatMap((el) => {
    const body = el.type === 'redirected_statement' ? el.childForFieldName('body') : null;
    if (el.type === 'pipeline') return pipelineLeaves(el);
    if (body?.type === 'pipeline') return pipelineLeaves(body);
    return el.type.endsWith('_redirect') ? [] : [el];
  });
}

/**
 * The pipeline elements that run before this command and feed its input. `cat <<EOF | sh` parses with the
 * pipeline inside the here-document's redirect: there the command owning the here-document comes first.
 */
function pipelineChain(node: SyntaxNode): { before: SyntaxNode[] } {
  let element: SyntaxNode = node;
  let outer: SyntaxNode | null = null;
  for (let p = node.parent; p && (p.type === 'pipeline' || p.type === 'redirected_statement'); p = p.parent) {
    if (p.type === 'pipeline') outer = p;
    if (p.type === 'redirected_statement' && p.childForFieldName('body')?.id !== element.id) break;
    element = p;
  }
  if (!outer) return { before: [] };
  const leaves = pipelineLeaves(outer);
  const at = leaves.findIndex((l) => l.id === node.id || (l.type === 'redirected_statement' && l.childForFieldName('body')?.id === node.id));
  const before = leaves.slice(0, Math.max(at, 0));
  if (outer.parent?.type === 'heredoc_redirect' && outer.parent.parent?.type === 'redirected_statement') {
    const owner = outer.parent.parent.childForFieldName('body');
    if (owner) before.unshift(owner);
  }
  return { before };
}

class Analysis implements CheckContext {
  readonly findings = new Map<string, Finding>();
  constructor(
    private readonly parse: ParseBash,
    readonly cwd: string | undefined,
    private depth = 0,
  ) {}

  add(id: string, detail: string): void {
    if (this.findings.has(id)) return;
    const r = rule(id);
    this.findings.set(id, { rule: id, tier: r.tier, description: `${r.description}: ${detail}` });
  }

  private nested(run: () => void): void {
    if (this.depth >= MAX_DEPTH) {
      this.add('too-deep', `more than ${MAX_DEPTH} levels`);
      return;
    }
    this.depth += 1;
    try {
      run();
    } finally {
      this.depth -= 1;
    }
  }

  script(source: string): void {
    this.nested(() =>
      this.parse(source, (root) => {
        if (!root) {
          this.add('unparsed', source.slice(0, 80));
          return;
        }
        if (root.hasError) this.add('unparsed', source.length > 80 ? `${source.slice(0, 77)}...` : source);
        this.walk(root);
      }),
    );
  }

  code(source: string, language: string): void {
    this.nested(() => analyseCode(source, language, this));
  }

  argv(words: Word[], io: Io = { upstream: [] }): void {
    this.nested(() => this.judge(words, io));
  }

  private walk(node: SyntaxNode): void {
    switch (node.type) {
      case 'command':
        this.command(node);
        break;
      case 'file_redirect':
        this.redirect(node);
        break;
      case 'function_definition':
        this.functionDefinition(node);
        break;
      case 'pipeline':
        this.pipeline(node);
        break;
      default:
        break;
    }
    for (const child of named(node)) this.walk(child);
  }

  private command(node: SyntaxNode): void {
    const redirects = redirectsOf(node);
    const io: Io = { upstream: [], stdinText: stdinTextOf(redirects) };
    const input = redirects.find((r) => r.type === 'file_redirect' && r.children.some((c) => c?.type === '<'));
    const target = input?.childForFieldName('destination');
    if (target) io.stdinFile = wordOf(target);
    // Earlier elements of the pipeline feed this command's standard input.
    const chain = pipelineChain(node);
    for (const prev of chain.before) {
      const cmd = firstCommand(prev);
      const argv = cmd ? peel(commandWords(cmd)).argv : null;
      io.upstream.push({ argv, text: printedText(prev, argv) } satisfies Upstream);
    }
    this.judge(commandWords(node), io);
  }

  /** Peels wrappers from an argv and runs the check for the command that really runs. */
  private judge(words: Word[], io: Io): void {
    if (words.length === 0) return;
    const { argv, splitString } = peel(words);
    if (splitString !== undefined) this.script(splitString);
    if (!argv) return;
    if (argv.name === null) {
      this.add('dynamic-command', argv.written);
      return;
    }
    const name = argv.name === 'busybox' ? null : argv.name;
    const check = name ? checkFor(name) : undefined;
    check?.(argv, io, this);
  }

  private redirect(node: SyntaxNode): void {
    const dest = node.childForFieldName('destination');
    if (!dest || dest.type === 'number') return;
    const op = node.children.find((c) => c !== null && !c.isNamed)?.type ?? '>';
    const word = wordOf(dest);
    if (op.includes('>')) checkWrite(word, `${op} ${word.text}`, this);
    else if (/^\/dev\/(tcp|udp)\//.test(word.text)) this.add('reverse-shell', `${op} ${word.text}`);
  }

  /** `f(){ f | f & }; f`: a function that calls itself more than once per call. */
  private functionDefinition(node: SyntaxNode): void {
    const name = node.childForFieldName('name')?.text;
    const body = node.childForFieldName('body');
    if (!name || !body) return;
    let calls = 0;
    const count = (n: SyntaxNode): void => {
      if (n.type === 'command' && peel(commandWords(n)).argv?.written === name) calls += 1;
      named(n).forEach(count);
    };
    count(body);
    if (calls >= 2) this.add('fork-bomb', node.text.slice(0, 80));
  }

  private pipeline(node: SyntaxNode): void {
    if (node.parent?.type === 'pipeline' || node.parent?.parent?.type === 'pipeline') return; // judged as part of the outer one
    const names = pipelineLeaves(node).map((el) => {
      const cmd = firstCommand(el);
      return cmd ? (peel(commandWords(cmd)).argv?.name ?? null) : null;
    });
    if (pipelineShellOverNetwork(names)) this.add('reverse-shell', node.text.slice(0, 80));
    const last = names.at(-1) ?? null;
    if (runsCode(last) && names.slice(0, -1).some((n) => n !== null && DOWNLOADERS.has(n))) this.add('remote-code-exec', node.text.slice(0, 80));
  }
}

const TIER_ORDER: Record<Tier, number> = { dangerous: 1, hardline: 2 };

/** Judges one command line. `parse` comes from loadBashParser(). */
export function detect(parse: ParseBash, command: string, opts: DetectOptions = {}): Verdict {
  const analysis = new Analysis(parse, opts.cwd, -1);
  if (command.trim() !== '') analysis.script(command);
  const findings = [...analysis.findings.values()].sort((a, b) => TIER_ORDER[b.tier] - TIER_ORDER[a.tier]);
  return { command, dangerous: findings.length > 0, tier: findings[0]?.tier ?? null, findings };
}
