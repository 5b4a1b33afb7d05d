// Reads a Python program's syntax tree (tree-sitter-python): imports and aliases, names assigned once, and the
// calls that spawn, delete or signal, with their arguments folded to literals where they can be. Pure.
import { decodeBase64 } from '../decode.js';
import type { SyntaxNode } from '../parser.js';
import { DANGEROUS_MODULES, SPAWNERS, unknown, type ProgramCall, type Value } from './effects.js';

const named = (n: SyntaxNode): SyntaxNode[] => n.namedChildren.filter((c): c is SyntaxNode => c !== null);

function all(root: SyntaxNode, type: string): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const visit = (n: SyntaxNode): void => {
    if (n.type === type) out.push(n);
    for (const c of named(n)) visit(c);
  };
  visit(root);
  return out;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
  '\n': '',
};

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
    for (const imp of all(root, 'import_statement')) {
      for (const n of imp.childrenForFieldName('name').filter((c): c is SyntaxNode => c !== null)) {
        if (n.type === 'aliased_import')
          this.aliases.set(n.childForFieldName('alias')?.text ?? '', n.childForFieldName('name')?.text ?? '');
        else this.aliases.set(n.text.split('.')[0]!, n.text.split('.')[0]!);
      }
    }
    for (const imp of all(root, 'import_from_statement')) {
      const module = imp.childForFieldName('module_name')?.text ?? '';
      if (named(imp).some((c) => c.type === 'wildcard_import')) {
        for (const key of Object.keys(SPAWNERS))
          if (key.startsWith(`${module}.`) && !key.slice(module.length + 1).includes('.'))
            this.aliases.set(key.slice(module.length + 1), key);
      }
      for (const n of imp.childrenForFieldName('name').filter((c): c is SyntaxNode => c !== null)) {
        if (n.type === 'aliased_import')
          this.aliases.set(
            n.childForFieldName('alias')?.text ?? '',
            `${module}.${n.childForFieldName('name')?.text ?? ''}`,
          );
        else this.aliases.set(n.text, `${module}.${n.text}`);
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
      const first = named(n.childForFieldName('arguments') ?? n)[0];
      const module = first ? this.fold(first, depth + 1) : undefined;
      if ((fn === '__import__' || fn === 'importlib.import_module') && module?.kind === 'str') return module.v;
      if (fn === 'getattr') {
        const [obj, attr] = named(n.childForFieldName('arguments') ?? n);
        const base = this.qualify(obj ?? null, depth + 1);
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
        const start = named(n).find((c) => c.type === 'string_start')?.text ?? '"';
        if (named(n).some((c) => c.type === 'interpolation')) return unknown(n.text);
        const body = named(n)
          .filter((c) => c.type === 'string_content')
          .map((c) => c.text)
          .join('');
        return { kind: 'str', v: /r/i.test(start) ? body : unescape(body) };
      }
      case 'concatenated_string':
      case 'binary_operator': {
        const parts =
          n.type === 'concatenated_string'
            ? named(n)
            : [n.childForFieldName('left'), n.childForFieldName('right')].filter((c): c is SyntaxNode => c !== null);
        const op = n.childForFieldName('operator')?.type ?? '+';
        const values = parts.map((p) => this.fold(p, depth + 1));
        if (op === '+' && values.every((v) => v.kind === 'str'))
          return { kind: 'str', v: values.map((v) => (v as { v: string }).v).join('') };
        if (op === '+' && values.every((v) => v.kind === 'list'))
          return { kind: 'list', items: values.flatMap((v) => (v as { items: Value[] }).items) };
        if (op === '*' && values[0]?.kind === 'str' && values[1]?.kind === 'num')
          return { kind: 'str', v: values[0].v.repeat(Math.max(0, Math.min(values[1].v, 1000))) };
        return unknown(n.text);
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
        const assigned = this.once.get(n.text);
        return assigned ? this.fold(assigned, depth + 1) : unknown(n.text);
      }
      case 'attribute':
        return unknown(n.text, n.childForFieldName('attribute')?.text === 'pid');
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
    if (name === 'str') return arg(0).kind === 'str' ? arg(0) : unknown(n.text);
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
      return s.kind === 'str'
        ? {
            kind: 'list',
            items: s.v
              .split(/\s+/)
              .filter(Boolean)
              .map((v) => ({ kind: 'str', v })),
          }
        : unknown(n.text);
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
        if (method === 'decode' || method === 'encode' || method === 'strip')
          return method === 'strip' ? { kind: 'str', v: self.v.trim() } : self;
        if (method === 'replace') {
          const [a, b] = [arg(0), arg(1)];
          if (a.kind === 'str' && b.kind === 'str') return { kind: 'str', v: self.v.split(a.v).join(b.v) };
        }
        if (method === 'split')
          return {
            kind: 'list',
            items: self.v
              .split(/\s+/)
              .filter(Boolean)
              .map((v) => ({ kind: 'str', v })),
          };
      }
    }
    return unknown(n.text);
  }

  /** The calls of interest, with arguments folded; calls through a computed attribute of a dangerous module too. */
  calls(root: SyntaxNode): ProgramCall[] {
    const out: ProgramCall[] = [];
    for (const c of all(root, 'call')) {
      const name = this.qualify(c.childForFieldName('function'));
      if (name === undefined) continue;
      const text = c.text.length > 100 ? `${c.text.slice(0, 97)}...` : c.text;
      const argNodes = named(c.childForFieldName('arguments') ?? c);
      const args: Value[] = [];
      const keywords: Record<string, Value> = {};
      for (const a of argNodes) {
        if (a.type === 'keyword_argument')
          keywords[a.childForFieldName('name')?.text ?? ''] = this.fold(a.childForFieldName('value')!);
        else if (a.type === 'list_splat' || a.type === 'dictionary_splat') args.push(unknown(a.text));
        else if (a.type !== 'comment') args.push(this.fold(a));
      }
      if (name.endsWith('.<computed>')) out.push({ name, args, keywords, text });
      else if (Object.hasOwn(SPAWNERS, name) && !name.startsWith('child_process') && !name.startsWith('js.'))
        out.push({ name, args, keywords, text });
    }
    return out;
  }
}

export function pythonCalls(root: SyntaxNode): ProgramCall[] {
  return new PythonReader(root).calls(root);
}
