// Reads a Python program's syntax tree (tree-sitter-python): imports and aliases, names assigned once, and the
// calls that spawn, delete or signal, with their arguments folded to literals where they can be. Pure.
import { decodeBase64 } from '../../engine/decode.js';
import type { SyntaxNode } from '../../engine/parser.js';
import { C_ESCAPES } from '../../engine/words.js';
import {
  computed,
  DANGEROUS_MODULES,
  FED_INPUT,
  joinPaths,
  OWN_FILE,
  runsSomething,
  SPAWNERS,
  tailOf,
  unknown,
  type ProgramCall,
  type ProgramEffect,
  type Value,
} from './effects.js';

const present = (nodes: (SyntaxNode | null)[]): SyntaxNode[] => nodes.filter((c) => c !== null);
const named = (n: SyntaxNode): readonly SyntaxNode[] => n.namedChildren;
const all = (root: SyntaxNode, type: string): SyntaxNode[] => root.descendantsOfType(type);

/** A call's text for a finding, shortened. */
const callText = (n: SyntaxNode): string => (n.text.length > 100 ? `${n.text.slice(0, 97)}...` : n.text);

/** Words split on white space, as `shlex.split` and `str.split()` give them. */
const wordList = (text: string): Value => ({
  kind: 'list',
  items: text
    .split(/\s+/)
    .filter(Boolean)
    .map((v) => ({ kind: 'str', v })),
});

/** Callees that join their arguments as paths (os.path.join, pathlib's constructors). */
const PATH_JOINERS = /^(os\.path\.join|pathlib\.(Path|PurePath|PosixPath))$/;

/** Callees that run a Python file named by their second argument. */
const SOURCE_LOADERS =
  /^(imp\.load_source|importlib\.util\.spec_from_file_location|importlib\.machinery\.SourceFileLoader)$/;

/** Where a name is declared rather than used: a parameter, a definition's name, a keyword's name, global/nonlocal. */
const DECLARING_PARENT =
  /^(keyword_argument|parameters|default_parameter|typed_parameter|function_definition|class_definition|lambda_parameters|global_statement|nonlocal_statement)$/;

/** Namespaces that hold every builtin or module: a computed name looked up in them may be any function. */
const BUILTIN_NAMESPACES = /^(__builtins__|builtins|sys\.modules)$/;
/** Calls that return a namespace of names (`globals()[k]`). */
const NAMESPACE_CALLS = /^(globals|locals|vars)$/;

/** The names an import statement brings in (`a.b`, `x as y`). */
const importNames = (imp: SyntaxNode): SyntaxNode[] => imp.childrenForFieldName('name');
/** The module or name an import names, without its alias (`a.b` of `import a.b as c`). */
const importedName = (n: SyntaxNode): string =>
  (n.type === 'aliased_import' ? n.childForFieldName('name') : n)?.text ?? '';

/** Python's string escapes: C's, `\0`, and a backslash before a newline (which continues the line). */
const ESCAPES: Record<string, string> = { ...C_ESCAPES, '0': '\0', '\n': '' };

function unescape(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.)/gs, (all, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ESCAPES[e] ?? all;
  });
}

class PythonReader {
  private readonly aliases = new Map<string, string>();
  /** Names assigned exactly once, with the assigned expression. */
  private readonly once = new Map<string, SyntaxNode>();

  constructor(root: SyntaxNode) {
    for (const imp of all(root, 'import_statement'))
      for (const n of importNames(imp))
        if (n.type === 'aliased_import')
          this.aliases.set(n.childForFieldName('alias')?.text ?? '', n.childForFieldName('name')?.text ?? '');
        else this.aliases.set(n.text.split('.')[0]!, n.text.split('.')[0]!);
    for (const imp of all(root, 'import_from_statement')) {
      const module = imp.childForFieldName('module_name')?.text ?? '';
      // `from os import *` brings in the module's functions that run something.
      if (named(imp).some((c) => c.type === 'wildcard_import'))
        for (const key of Object.keys(SPAWNERS))
          if (key.startsWith(`${module}.`) && !key.slice(module.length + 1).includes('.'))
            this.aliases.set(key.slice(module.length + 1), key);
      for (const n of importNames(imp)) {
        const alias = n.type === 'aliased_import' ? (n.childForFieldName('alias')?.text ?? '') : n.text;
        this.aliases.set(alias, `${module}.${importedName(n)}`);
      }
    }
    const counts = new Map<string, number>();
    for (const a of all(root, 'assignment')) {
      const left = a.childForFieldName('left');
      if (left?.type !== 'identifier') continue;
      counts.set(left.text, (counts.get(left.text) ?? 0) + 1);
      const right = a.childForFieldName('right');
      if (right) this.once.set(left.text, right);
    }
    for (const [name, n] of counts) if (n > 1) this.once.delete(name);
    for (const a of all(root, 'augmented_assignment')) {
      const left = a.childForFieldName('left');
      if (left) this.once.delete(left.text);
    }
  }

  /** The qualified name of a callee: `sp.run` → `subprocess.run`, `__import__('os').system` → `os.system`. */
  qualify(n: SyntaxNode | null, depth = 0): string | undefined {
    if (!n || depth > 8) return undefined;
    if (n.type === 'identifier') {
      const alias = this.aliases.get(n.text);
      if (alias !== undefined) return alias;
      const assigned = this.once.get(n.text);
      if (assigned && (assigned.type === 'attribute' || assigned.type === 'identifier'))
        return this.qualify(assigned, depth + 1);
      return n.text;
    }
    if (n.type === 'attribute') {
      const base = this.qualify(n.childForFieldName('object'), depth + 1);
      return base === undefined ? undefined : `${base}.${n.childForFieldName('attribute')?.text ?? ''}`;
    }
    if (n.type === 'call') {
      const fn = this.qualify(n.childForFieldName('function'), depth + 1);
      const [first, attr] = named(n.childForFieldName('arguments') ?? n);
      const module = first ? this.fold(first, depth + 1) : undefined;
      if ((fn === '__import__' || fn === 'importlib.import_module') && module?.kind === 'str') return module.v;
      if (fn === 'getattr') {
        const base = this.qualify(first ?? null, depth + 1);
        const name = attr ? this.fold(attr, depth + 1) : undefined;
        if (base !== undefined && name?.kind === 'str') return `${base}.${name.v}`;
        if (base !== undefined && DANGEROUS_MODULES.has(base)) return `${base}.<computed>`;
      }
    }
    return undefined;
  }

  fold(n: SyntaxNode, depth = 0): Value {
    if (depth > 16) return unknown(n.text);
    switch (n.type) {
      case 'string': {
        const parts = named(n);
        const raw = /r/i.test(parts.find((c) => c.type === 'string_start')?.text ?? '"');
        const content = (nodes: readonly SyntaxNode[]): string => {
          const text = nodes.flatMap((c) => (c.type === 'string_content' ? [c.text] : [])).join('');
          return raw ? text : unescape(text);
        };
        // An f-string: only the text after its last interpolation is known.
        const last = parts.map((c) => c.type).lastIndexOf('interpolation');
        if (last >= 0) return unknown(n.text, false, content(parts.slice(last + 1)));
        return { kind: 'str', v: content(parts) };
      }
      case 'concatenated_string':
      case 'binary_operator': {
        const parts =
          n.type === 'concatenated_string'
            ? named(n)
            : present([n.childForFieldName('left'), n.childForFieldName('right')]);
        const op = n.childForFieldName('operator')?.type ?? '+';
        const values = parts.map((p) => this.fold(p, depth + 1));
        if (op === '+' && values.every((v) => v.kind === 'str'))
          return { kind: 'str', v: values.map((v) => (v as { v: string }).v).join('') };
        if (op === '+' && values.every((v) => v.kind === 'list'))
          return { kind: 'list', items: values.flatMap((v) => (v as { items: Value[] }).items) };
        if (op === '*' && values[0]?.kind === 'str' && values[1]?.kind === 'num')
          return { kind: 'str', v: values[0].v.repeat(Math.max(0, Math.min(values[1].v, 1000))) };
        // pathlib's `/` joins paths.
        if (op === '/' && values.length === 2) return joinPaths(values, n.text);
        return unknown(n.text, false, op === '+' ? tailOf(values.at(-1)) : undefined);
      }
      case 'integer':
        return Number.isFinite(Number(n.text)) ? { kind: 'num', v: Number(n.text) } : unknown(n.text);
      case 'unary_operator': {
        const v = this.fold(n.childForFieldName('argument')!, depth + 1);
        return v.kind === 'num' && n.text.startsWith('-') ? { kind: 'num', v: -v.v } : unknown(n.text);
      }
      case 'true':
      case 'false':
        return { kind: 'bool', v: n.type === 'true' };
      case 'list':
      case 'tuple':
        return {
          kind: 'list',
          items: named(n).map((c) => (c.type === 'list_splat' ? unknown(c.text) : this.fold(c, depth + 1))),
        };
      case 'parenthesized_expression':
        return named(n)[0] ? this.fold(named(n)[0]!, depth + 1) : unknown(n.text);
      case 'identifier': {
        if (n.text === '__file__') return { kind: 'str', v: OWN_FILE };
        const assigned = this.once.get(n.text);
        return assigned ? this.fold(assigned, depth + 1) : unknown(n.text);
      }
      case 'attribute': {
        const attr = n.childForFieldName('attribute')?.text;
        if (attr === 'parent') {
          const base = this.fold(n.childForFieldName('object')!, depth + 1);
          if (base.kind === 'str') return { kind: 'str', v: `${base.v}/..` };
        }
        return unknown(n.text, attr === 'pid');
      }
      case 'subscript': {
        // text[::-1] reverses.
        const v = this.fold(n.childForFieldName('value')!, depth + 1);
        const slice = n.childForFieldName('subscript');
        if (v.kind === 'str' && slice?.type === 'slice' && slice.text.replace(/\s/g, '') === '::-1')
          return { kind: 'str', v: [...v.v].reverse().join('') };
        return unknown(n.text);
      }
      case 'call':
        return this.foldCall(n, depth);
      default:
        return unknown(n.text);
    }
  }

  private foldCall(n: SyntaxNode, depth: number): Value {
    const fn = n.childForFieldName('function');
    const args = named(n.childForFieldName('arguments') ?? n).filter((c) => c.type !== 'keyword_argument');
    const arg = (i: number): Value => (args[i] ? this.fold(args[i]!, depth + 1) : unknown(''));
    const name = this.qualify(fn, depth + 1);
    if (name === 'os.getpid' || name === 'os.getppid') return unknown(n.text, name === 'os.getpid');
    if (name === 'chr') {
      const c = arg(0);
      return c.kind === 'num' ? { kind: 'str', v: String.fromCharCode(c.v) } : unknown(n.text);
    }
    if (name === 'str') return arg(0).kind === 'str' ? arg(0) : unknown(n.text, false, tailOf(arg(0)));
    // Paths a program builds for its module search path or the files it writes.
    if (name === 'os.path.dirname')
      return arg(0).kind === 'str' ? { kind: 'str', v: `${(arg(0) as { v: string }).v}/..` } : unknown(n.text);
    if (name === 'os.getcwd') return { kind: 'str', v: '.' };
    if (name && /^os\.path\.(abspath|realpath|normpath|expanduser)$/.test(name)) return arg(0);
    const allArgs = (): Value[] => args.map((_, i) => arg(i));
    if (name && PATH_JOINERS.test(name))
      return args.length === 0 ? { kind: 'str', v: '.' } : joinPaths(allArgs(), n.text);
    if (name === 'base64.b64decode' || name === 'base64.standard_b64decode' || name === 'bytes.fromhex') {
      const s = arg(0);
      if (s.kind !== 'str') return unknown(n.text);
      const decoded =
        name === 'bytes.fromhex'
          ? /^([0-9a-fA-F]{2}\s*)*$/.test(s.v)
            ? s.v.replace(/\s/g, '').replace(/../g, (h) => String.fromCharCode(parseInt(h, 16)))
            : undefined
          : decodeBase64(s.v);
      return decoded === undefined ? unknown(n.text) : { kind: 'str', v: decoded };
    }
    if (name === 'shlex.split') {
      const s = arg(0);
      return s.kind === 'str' ? wordList(s.v) : unknown(n.text);
    }
    if (fn?.type === 'attribute') {
      const method = fn.childForFieldName('attribute')?.text;
      const self = this.fold(fn.childForFieldName('object')!, depth + 1);
      if (self.kind === 'str') {
        if (method === 'join') {
          const list = arg(0);
          if (list.kind === 'list' && list.items.every((i) => i.kind === 'str'))
            return { kind: 'str', v: list.items.map((i) => (i as { v: string }).v).join(self.v) };
        }
        if (method === 'strip') return { kind: 'str', v: self.v.trim() };
        if (/^(decode|encode|resolve|absolute|expanduser)$/.test(method ?? '')) return self;
        if (method === 'joinpath') return joinPaths([self, ...allArgs()], n.text);
        if (method === 'replace') {
          const [a, b] = [arg(0), arg(1)];
          if (a.kind === 'str' && b.kind === 'str') return { kind: 'str', v: self.v.split(a.v).join(b.v) };
        }
        if (method === 'split') return wordList(self.v);
      }
    }
    return unknown(n.text);
  }

  /**
   * What the program writes into a process it started, in the same expression: `os.popen('sh', 'w').write(x)`,
   * `Popen(...).stdin.write(x)`, `Popen(...).communicate(x)`.
   */
  private fedInput(c: SyntaxNode): Value | undefined {
    let at: SyntaxNode = c;
    if (at.parent?.type === 'attribute' && at.parent.childForFieldName('attribute')?.text === 'stdin') at = at.parent;
    const method = at.parent?.type === 'attribute' ? at.parent.childForFieldName('attribute')?.text : undefined;
    const call = at.parent?.parent;
    if (!method || !/^(write|writelines|communicate)$/.test(method) || call?.type !== 'call') return undefined;
    const a = named(call.childForFieldName('arguments') ?? call).find((x) => x.type !== 'comment');
    return a ? this.fold(a.type === 'keyword_argument' ? a.childForFieldName('value')! : a) : undefined;
  }

  /** The calls of interest, with arguments folded; calls through a computed attribute of a dangerous module too. */
  calls(root: SyntaxNode): ProgramCall[] {
    const out: ProgramCall[] = [];
    for (const c of all(root, 'call')) {
      const name = this.qualify(c.childForFieldName('function'));
      if (name === undefined) continue;
      const text = callText(c);
      const args: Value[] = [];
      const keywords: Record<string, Value> = {};
      for (const a of named(c.childForFieldName('arguments') ?? c)) {
        if (a.type === 'keyword_argument')
          keywords[a.childForFieldName('name')?.text ?? ''] = this.fold(a.childForFieldName('value')!);
        // A splat (`*args`, `**kw`) folds to unknown, its text starting with `*`.
        else if (a.type !== 'comment') args.push(this.fold(a));
      }
      const fed = this.fedInput(c);
      if (fed !== undefined) keywords[FED_INPUT] = fed;
      const spawner = Object.hasOwn(SPAWNERS, name) && !name.startsWith('child_process') && !name.startsWith('js.');
      if (spawner || name.endsWith('.<computed>')) out.push({ name, args, keywords, text });
    }
    return out;
  }

  /** What the program imports and runs from files, and the directories it adds to its module path. */
  loads(root: SyntaxNode): ProgramEffect[] {
    const out: ProgramEffect[] = [];
    const load = (module: string, level = 0, names: string[] = []): void => {
      out.push({ kind: 'load', language: 'python', how: 'import', module, level, names });
    };
    for (const imp of all(root, 'import_statement')) for (const n of importNames(imp)) load(importedName(n));
    for (const imp of all(root, 'import_from_statement')) {
      const from = imp.childForFieldName('module_name');
      const relative = from?.type === 'relative_import';
      const prefix = relative ? (named(from).find((c) => c.type === 'import_prefix')?.text ?? '') : '';
      const module = relative ? (named(from).find((c) => c.type === 'dotted_name')?.text ?? '') : (from?.text ?? '');
      load(module, prefix.length, importNames(imp).map(importedName));
    }
    const path = (v: Value, how: 'file' | 'root', text: string): void => {
      if (v.kind === 'str') out.push({ kind: 'load', language: 'python', how, path: v.v });
      else out.push(...computed({ text }, how === 'root' ? 'the directory it loads modules from' : 'the file it runs'));
    };
    const roots = (v: Value, text: string): void => {
      for (const item of v.kind === 'list' ? v.items : [v]) path(item, 'root', text);
    };
    for (const c of all(root, 'call')) {
      const name = this.qualify(c.childForFieldName('function'));
      const args = named(c.childForFieldName('arguments') ?? c).filter((a) => a.type !== 'keyword_argument');
      const arg = (i: number): Value => (args[i] ? this.fold(args[i]!) : unknown(''));
      const text = callText(c);
      if (name === 'importlib.import_module' || name === '__import__' || name === 'runpy.run_module') {
        const m = arg(0);
        if (m.kind === 'str') load(m.v.replace(/^\.+/, ''), /^\.*/.exec(m.v)![0].length);
        else out.push(...computed({ text }, 'the module it loads'));
      } else if (name === 'runpy.run_path') path(arg(0), 'file', text);
      else if (name && SOURCE_LOADERS.test(name)) path(arg(1), 'file', text);
      else if (name === 'sys.path.insert') path(arg(1), 'root', text);
      else if (name === 'sys.path.append' || name === 'site.addsitedir') path(arg(0), 'root', text);
      else if (name === 'sys.path.extend') roots(arg(0), text);
    }
    // sys.path[0:0] = [...], sys.path = [...], sys.path += [...]
    for (const a of [...all(root, 'assignment'), ...all(root, 'augmented_assignment')]) {
      const left = a.childForFieldName('left');
      const target = left?.type === 'subscript' ? left.childForFieldName('value') : left;
      if (!target || this.qualify(target) !== 'sys.path') continue;
      const right = a.childForFieldName('right');
      roots(right ? this.fold(right) : unknown(a.text), a.text);
    }
    // Directories added to sys.path apply to every import of the module, wherever it is written.
    const isRoot = (e: ProgramEffect): boolean => e.kind === 'load' && e.how === 'root';
    return [...out.filter(isRoot), ...out.filter((e) => !isRoot(e))];
  }

  /**
   * Ways to reach a function that runs something without naming it in a call: the function handed around as a value
   * (`map(os.system, cmds)`), a dangerous module used as a value (`vars(os)[k]`), namespaces indexed by a computed
   * key (`globals()[k]`, `sys.modules[k]`), introspection that leads back to modules (`__subclasses__`,
   * `__globals__`) and C calls (ctypes). Each is a call whose callee is computed.
   */
  escapes(root: SyntaxNode): ProgramCall[] {
    const out: ProgramCall[] = [];
    const escape = (n: SyntaxNode, what: string): void => {
      out.push({ name: `${what}.<computed>`, args: [], keywords: {}, text: callText(n) });
    };
    const inImport = (n: SyntaxNode): boolean => {
      for (let p: SyntaxNode | null = n.parent; p; p = p.parent)
        if (p.type === 'import_statement' || p.type === 'import_from_statement') return true;
      return false;
    };
    const visit = (n: SyntaxNode): void => {
      if (n.type === 'identifier' || n.type === 'attribute') {
        const parent = n.parent;
        const asAttributeName = parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === n.id;
        const isBase = parent?.type === 'attribute' && parent.childForFieldName('object')?.id === n.id;
        const isCallee = parent?.type === 'call' && parent.childForFieldName('function')?.id === n.id;
        const declared =
          parent !== null &&
          DECLARING_PARENT.test(parent.type) &&
          (parent.type !== 'keyword_argument' || parent.childForFieldName('name')?.id === n.id);
        if (!asAttributeName && !isCallee && !declared && !(n.type === 'identifier' && isBase) && !inImport(n)) {
          const q = this.qualify(n);
          const aliasOnce =
            parent?.type === 'assignment' &&
            parent.childForFieldName('right')?.id === n.id &&
            parent.childForFieldName('left')?.type === 'identifier' &&
            this.once.has(parent.childForFieldName('left')!.text);
          const getattrLiteral =
            parent?.type === 'argument_list' &&
            parent.parent?.type === 'call' &&
            this.qualify(parent.parent.childForFieldName('function')) === 'getattr' &&
            named(parent)[0]?.id === n.id &&
            named(parent)[1] !== undefined &&
            this.fold(named(parent)[1]!).kind === 'str';
          const reachesRunner = q !== undefined && (runsSomething(q) || DANGEROUS_MODULES.has(q));
          if (reachesRunner && !aliasOnce && !getattrLiteral && !isBase) escape(n, q);
        }
        const attr = n.type === 'attribute' ? n.childForFieldName('attribute')?.text : undefined;
        if (attr && /^__(subclasses|globals|builtins|code|closure)__$/.test(attr)) escape(n, 'introspection');
      }
      if (n.type === 'subscript') {
        const base = n.childForFieldName('value');
        const q = base ? this.qualify(base) : undefined;
        const key = n.childForFieldName('subscript');
        const namespace =
          q === 'sys.modules' ||
          q === '__builtins__' ||
          (base?.type === 'call' && NAMESPACE_CALLS.test(this.qualify(base.childForFieldName('function')) ?? '')) ||
          (base?.type === 'attribute' && base.childForFieldName('attribute')?.text === '__dict__');
        if (namespace && (!key || this.fold(key).kind !== 'str')) escape(n, 'namespace');
      }
      if (n.type === 'call') {
        const q = this.qualify(n.childForFieldName('function'));
        if (q && /^ctypes\.(CDLL|PyDLL|cdll|pydll|pythonapi|LibraryLoader|util)\b|^cffi\b/.test(q)) escape(n, 'ctypes');
        if (q === 'operator.attrgetter' || q === 'operator.methodcaller') escape(n, 'operator');
        if (q === 'getattr') {
          const [obj, attr] = named(n.childForFieldName('arguments') ?? n);
          const base = obj ? this.qualify(obj) : undefined;
          if (attr && this.fold(attr).kind !== 'str' && base && BUILTIN_NAMESPACES.test(base)) escape(n, base);
        }
      }
      for (const c of named(n)) visit(c);
    };
    visit(root);
    return out;
  }
}

export function pythonCalls(root: SyntaxNode): ProgramCall[] {
  const reader = new PythonReader(root);
  return [...reader.calls(root), ...reader.escapes(root)];
}

export const pythonLoads = (root: SyntaxNode): ProgramEffect[] => new PythonReader(root).loads(root);
