// Reads a JavaScript program's syntax tree (ESTree, as oxc-parser gives it): imports and require() aliases,
// constants, and the calls that spawn, delete or signal, with their arguments folded to literals where they can
// be. Pure (works on a parsed tree).
import { decodeBase64 } from '../../engine/decode.js';
import {
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

export interface EsNode {
  type: string;
  start?: number;
  end?: number;
  [key: string]: unknown;
}

const isNode = (v: unknown): v is EsNode =>
  typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
const child = (n: EsNode, key: string): EsNode | undefined => (isNode(n[key]) ? n[key] : undefined);
const children = (n: EsNode, key: string): EsNode[] =>
  Array.isArray(n[key]) ? (n[key] as unknown[]).filter(isNode) : [];

type Visit = (n: EsNode, parent: EsNode | undefined, key: string) => void;

/** Walks the tree with each node's parent and the key it is under. */
function walk(n: unknown, visit: Visit, parent?: EsNode, key = ''): void {
  if (Array.isArray(n)) for (const c of n) walk(c, visit, parent, key);
  else if (isNode(n)) {
    visit(n, parent, key);
    for (const [k, v] of Object.entries(n))
      if (k !== 'type' && typeof v === 'object' && v !== null) walk(v, visit, n, k);
  }
}

/** `process.getBuiltinModule('child_process')` is the module, like require. */
const GET_BUILTIN_MODULE = /^process\.getBuiltinModule$|^getBuiltinModule$/;

/** Where a name is declared rather than used: imports, definitions, properties, patterns, parameters. */
const DECLARING_PARENT =
  /^(ImportSpecifier|ImportDefaultSpecifier|ImportNamespaceSpecifier|ImportDeclaration|Property|MethodDefinition|PropertyDefinition|FunctionDeclaration|FunctionExpression|ArrowFunctionExpression|VariableDeclarator|LabeledStatement|ExportSpecifier|ObjectPattern|ArrayPattern|AssignmentPattern|RestElement|CatchClause|ClassDeclaration)$/;

/** Names of the Python reader's calls, which JavaScript does not have. */
const PYTHON_CALLS = /^(os|subprocess|shutil|pty|asyncio|commands)\.|^(exec|eval)$/;

const isText = (v: Value): v is Extract<Value, { kind: 'str' | 'num' }> => v.kind === 'str' || v.kind === 'num';

/** `node:child_process` → `child_process`. */
const moduleName = (s: string): string => s.replace(/^node:/, '');

class JavascriptReader {
  private readonly aliases = new Map<string, string>();
  private readonly once = new Map<string, EsNode>();

  constructor(
    program: EsNode,
    private readonly source: string,
  ) {
    const counts = new Map<string, number>();
    walk(program, (n) => {
      if (n.type === 'ImportDeclaration') {
        const from = moduleName(String(child(n, 'source')?.value ?? ''));
        for (const s of children(n, 'specifiers')) {
          const local = String(child(s, 'local')?.name ?? '');
          const imported = String(child(s, 'imported')?.name ?? child(s, 'imported')?.value ?? '');
          this.aliases.set(local, s.type === 'ImportSpecifier' ? `${from}.${imported}` : from);
        }
      }
      if (n.type === 'VariableDeclarator') {
        const id = child(n, 'id');
        const init = child(n, 'init');
        const required = init ? this.requiredModule(init) : undefined;
        if (id?.type === 'ObjectPattern' && init) {
          const base = required ?? this.qualify(init);
          for (const p of children(id, 'properties')) {
            const key = String(child(p, 'key')?.name ?? '');
            const value = child(p, 'value');
            if (base !== undefined && value?.type === 'Identifier')
              this.aliases.set(String(value.name), `${base}.${key}`);
          }
        } else if (id?.type === 'Identifier') {
          const name = String(id.name);
          if (required !== undefined) this.aliases.set(name, required);
          else if (init) {
            counts.set(name, (counts.get(name) ?? 0) + 1);
            this.once.set(name, init);
          }
        }
      }
      if (n.type === 'AssignmentExpression') {
        const left = child(n, 'left');
        if (left?.type === 'Identifier') counts.set(String(left.name), 2);
      }
    });
    for (const [name, c] of counts) if (c > 1) this.once.delete(name);
  }

  private text(n: EsNode): string {
    const t = this.source.slice(n.start ?? 0, n.end ?? 0);
    return t.length > 100 ? `${t.slice(0, 97)}...` : t;
  }

  /** require('x'), process.getBuiltinModule('x') and await import('x'). */
  private requiredModule(n: EsNode): string | undefined {
    const inner = n.type === 'AwaitExpression' ? child(n, 'argument') : n;
    const callee = inner?.type === 'CallExpression' ? child(inner, 'callee') : undefined;
    const required =
      callee !== undefined &&
      ((callee.type === 'Identifier' && callee.name === 'require') ||
        GET_BUILTIN_MODULE.test(this.qualify(callee) ?? ''));
    const arg = required
      ? children(inner!, 'arguments')[0]
      : inner?.type === 'ImportExpression'
        ? child(inner, 'source')
        : undefined;
    return arg?.type === 'Literal' && typeof arg.value === 'string' ? moduleName(arg.value) : undefined;
  }

  qualify(n: EsNode | undefined, depth = 0): string | undefined {
    if (!n || depth > 8) return undefined;
    if (n.type === 'Identifier') {
      const name = String(n.name);
      const alias = this.aliases.get(name);
      if (alias !== undefined) return alias;
      const assigned = this.once.get(name);
      if (assigned && (assigned.type === 'MemberExpression' || assigned.type === 'Identifier'))
        return this.qualify(assigned, depth + 1);
      return name === 'eval' || name === 'Function' ? `js.${name}` : name;
    }
    if (n.type === 'MemberExpression') {
      const base = this.requiredModule(child(n, 'object')!) ?? this.qualify(child(n, 'object'), depth + 1);
      if (base === undefined) return undefined;
      const prop = child(n, 'property');
      if (n.computed !== true) return `${base}.${String(prop?.name ?? '')}`;
      const key = prop ? this.fold(prop, depth + 1) : undefined;
      if (key?.kind === 'str') return `${base}.${key.v}`;
      return DANGEROUS_MODULES.has(base) ? `${base}.<computed>` : undefined;
    }
    if (n.type === 'ChainExpression') return this.qualify(child(n, 'expression'), depth + 1);
    return undefined;
  }

  fold(n: EsNode, depth = 0): Value {
    if (depth > 16) return unknown(this.text(n));
    switch (n.type) {
      case 'Literal':
        if (typeof n.value === 'string') return { kind: 'str', v: n.value };
        if (typeof n.value === 'number') return { kind: 'num', v: n.value };
        if (typeof n.value === 'boolean') return { kind: 'bool', v: n.value };
        return unknown(this.text(n));
      case 'TemplateLiteral': {
        const quasis = children(n, 'quasis').map((q) =>
          String((q.value as { cooked?: string } | undefined)?.cooked ?? ''),
        );
        const exprs = children(n, 'expressions').map((e) => this.fold(e, depth + 1));
        const parts = quasis.map((q, i) => {
          const e = exprs[i];
          return q + (e && isText(e) ? String(e.v) : '');
        });
        // Only the text after the last part computed at run time is known.
        const unknownAt = exprs.map((e) => !isText(e)).lastIndexOf(true);
        const known = parts.slice(unknownAt + 1).join('');
        return unknownAt >= 0 ? unknown(this.text(n), false, known) : { kind: 'str', v: known };
      }
      case 'BinaryExpression': {
        const [l, r] = [this.fold(child(n, 'left')!, depth + 1), this.fold(child(n, 'right')!, depth + 1)];
        if (n.operator === '+' && (l.kind === 'str' || r.kind === 'str') && isText(l) && isText(r))
          return { kind: 'str', v: `${l.v}${r.v}` };
        return unknown(this.text(n), false, n.operator === '+' ? tailOf(r) : undefined);
      }
      case 'UnaryExpression': {
        const v = this.fold(child(n, 'argument')!, depth + 1);
        return n.operator === '-' && v.kind === 'num' ? { kind: 'num', v: -v.v } : unknown(this.text(n));
      }
      case 'ArrayExpression':
        return { kind: 'list', items: children(n, 'elements').map((e) => this.fold(e, depth + 1)) };
      case 'ObjectExpression': {
        const keys: Record<string, Value> = {};
        for (const p of children(n, 'properties')) {
          const key = child(p, 'key');
          const name =
            key?.type === 'Identifier' ? String(key.name) : key?.type === 'Literal' ? String(key.value) : undefined;
          if (name !== undefined && child(p, 'value')) keys[name] = this.fold(child(p, 'value')!, depth + 1);
        }
        return { kind: 'obj', keys };
      }
      case 'Identifier': {
        if (n.name === '__filename') return { kind: 'str', v: OWN_FILE };
        if (n.name === '__dirname') return { kind: 'str', v: `${OWN_FILE}/..` };
        const assigned = this.once.get(String(n.name));
        return assigned ? this.fold(assigned, depth + 1) : unknown(this.text(n));
      }
      case 'MemberExpression':
        return unknown(this.text(n), child(n, 'property')?.name === 'pid');
      case 'ParenthesizedExpression':
        return this.fold(child(n, 'expression')!, depth + 1);
      case 'CallExpression':
        return this.foldCall(n, depth);
      default:
        // A spread (`...args`) too: unknown, its text starting with `...`.
        return unknown(this.text(n));
    }
  }

  private foldCall(n: EsNode, depth: number): Value {
    const callee = child(n, 'callee');
    const args = children(n, 'arguments').map((a) => this.fold(a, depth + 1));
    const name = this.qualify(callee, depth + 1);
    if (name === 'String.fromCharCode' && args.every((a) => a.kind === 'num'))
      return { kind: 'str', v: String.fromCharCode(...args.map((a) => (a as { v: number }).v)) };
    if (name === 'path.join' || name === 'path.resolve' || name === 'path.posix.join')
      return joinPaths(args, this.text(n));
    if (name === 'path.dirname' && args[0]?.kind === 'str') return { kind: 'str', v: `${args[0].v}/..` };
    if (name === 'process.cwd') return { kind: 'str', v: '.' };
    const decoded = (d: string | undefined): Value => (d === undefined ? unknown(this.text(n)) : { kind: 'str', v: d });
    if (name === 'atob' && args[0]?.kind === 'str') return decoded(decodeBase64(args[0].v));
    if (callee?.type === 'MemberExpression' && callee.computed !== true) {
      const method = String(child(callee, 'property')?.name ?? '');
      const object = child(callee, 'object')!;
      // Buffer.from('...', 'base64').toString()
      const fromBuffer = object.type === 'CallExpression' && this.qualify(child(object, 'callee')) === 'Buffer.from';
      if (method === 'toString' && fromBuffer) {
        const [data, encoding] = children(object, 'arguments').map((a) => this.fold(a, depth + 1));
        if (data?.kind === 'str' && (encoding === undefined || (encoding.kind === 'str' && encoding.v === 'base64')))
          return decoded(encoding === undefined ? data.v : decodeBase64(data.v));
      }
      const self = this.fold(object, depth + 1);
      if (self.kind === 'list' && method === 'join' && self.items.every((i) => i.kind === 'str')) {
        const sep = args[0]?.kind === 'str' ? args[0].v : ',';
        return { kind: 'str', v: self.items.map((i) => (i as { v: string }).v).join(sep) };
      }
      if (self.kind === 'list' && method === 'reverse') return { kind: 'list', items: [...self.items].reverse() };
      if (self.kind === 'str') {
        if (method === 'split' && args[0]?.kind === 'str')
          return { kind: 'list', items: self.v.split(args[0].v).map((v) => ({ kind: 'str', v })) };
        if (method === 'trim') return { kind: 'str', v: self.v.trim() };
        if ((method === 'replace' || method === 'replaceAll') && args[0]?.kind === 'str' && args[1]?.kind === 'str')
          return { kind: 'str', v: self.v.split(args[0].v).join(args[1].v) };
        if (method === 'concat' && args.every((a) => a.kind === 'str'))
          return { kind: 'str', v: self.v + args.map((a) => (a as { v: string }).v).join('') };
      }
    }
    return unknown(this.text(n));
  }

  /** What the program loads from files: imports, require(), dynamic import(), workers. */
  loads(program: EsNode): ProgramEffect[] {
    const out: ProgramEffect[] = [];
    const specifier = (arg: EsNode | undefined, what: string, node: EsNode): void => {
      const v = arg ? this.fold(arg) : undefined;
      if (v?.kind === 'str')
        out.push({ kind: 'load', language: 'javascript', how: 'import', module: v.v, level: 0, names: [] });
      else out.push({ kind: 'computed', detail: `${this.text(node)}: the module ${what} is computed at run time` });
    };
    walk(program, (n) => {
      if (/^(Import(Declaration|Expression)|Export(All|Named)Declaration)$/.test(n.type) && child(n, 'source'))
        specifier(child(n, 'source'), 'it imports', n);
      else if (n.type === 'CallExpression' || n.type === 'NewExpression') {
        const callee = child(n, 'callee');
        const name = callee?.type === 'Identifier' ? String(callee.name) : this.qualify(callee);
        const args = children(n, 'arguments');
        if (name === 'require' || name === 'module.require' || name === 'process.mainModule.require')
          specifier(args[0], 'it requires', n);
        else if (n.type === 'NewExpression' && (name === 'worker_threads.Worker' || name === 'Worker'))
          specifier(args[0], 'a worker runs', n);
        else if (callee?.type === 'CallExpression' && this.qualify(child(callee, 'callee')) === 'module.createRequire')
          specifier(args[0], 'it requires', n);
      }
    });
    return out;
  }

  /**
   * Ways to reach a function that runs something without naming it in a call: the function handed around as a value
   * (`[cp.execSync][0](x)`, `list.forEach(cp.exec)`, `cp.exec.call(...)`), a dangerous module used as a value
   * (`Object.values(cp)`, `Reflect.get(cp, k)`), process internals (`process.binding`, `process.dlopen`).
   */
  escapes(program: EsNode): ProgramCall[] {
    const out: ProgramCall[] = [];
    const escape = (n: EsNode, what: string): void => {
      out.push({ name: `${what}.<computed>`, args: [], keywords: {}, text: this.text(n) });
    };
    walk(program, (n, parent, key) => {
      if ((n.type !== 'Identifier' && n.type !== 'MemberExpression') || !parent) return;
      const isCallee = (parent.type === 'CallExpression' || parent.type === 'NewExpression') && key === 'callee';
      const isBase = parent.type === 'MemberExpression' && key === 'object';
      const isProperty = parent.type === 'MemberExpression' && key === 'property' && parent.computed !== true;
      const declared =
        DECLARING_PARENT.test(parent.type) &&
        !(parent.type === 'VariableDeclarator' && key === 'init') &&
        !(parent.type === 'Property' && key === 'value');
      if (isCallee || isProperty || declared) return;
      const q = this.qualify(n);
      if (q === undefined || (n.type === 'Identifier' && (q === 'require' || q === 'module'))) return;
      // `const e = cp.execSync` assigned once is followed by the calls through `e`.
      const aliasOnce =
        parent.type === 'VariableDeclarator' && key === 'init' && child(parent, 'id')?.type === 'Identifier';
      if (isBase) {
        const prop = String(child(parent, 'property')?.name ?? '');
        if (/^process\.(binding|_linkedBinding|dlopen)$/.test(`${q}.${prop}`)) escape(parent, 'process');
        // cp.exec.call(null, ...), cp.exec.apply(...), cp.exec.bind(...): the function called another way.
        if (runsSomething(q) && parent.computed !== true && /^(call|apply|bind)$/.test(prop)) escape(parent, q);
        return;
      }
      if (aliasOnce && (runsSomething(q) || DANGEROUS_MODULES.has(q))) return;
      if (runsSomething(q) && !q.startsWith('js.')) escape(n, q);
      else if (DANGEROUS_MODULES.has(q) && !(parent.type === 'VariableDeclarator' && key === 'init')) escape(n, q);
    });
    return out;
  }

  /** `spawn('sh').stdin.end(x)`, `exec(c).stdin.write(x)`: what the program writes into the process it started. */
  private fedInputs(program: EsNode): Map<EsNode, Value> {
    const fed = new Map<EsNode, Value>();
    walk(program, (n) => {
      const callee = n.type === 'CallExpression' ? child(n, 'callee') : undefined;
      if (callee?.type !== 'MemberExpression' || !/^(end|write)$/.test(String(child(callee, 'property')?.name))) return;
      const stream = child(callee, 'object');
      if (stream?.type !== 'MemberExpression' || child(stream, 'property')?.name !== 'stdin') return;
      const started = child(stream, 'object');
      const data = children(n, 'arguments')[0];
      if (started?.type === 'CallExpression' && data) fed.set(started, this.fold(data));
    });
    return fed;
  }

  calls(program: EsNode): ProgramCall[] {
    const out: ProgramCall[] = [];
    const fed = this.fedInputs(program);
    walk(program, (n) => {
      if (n.type === 'TaggedTemplateExpression') {
        // Bun.$`rm -rf x`, execa's $`...`: a template tag that runs a command line.
        const tag = this.qualify(child(n, 'tag'));
        if (tag === 'Bun.$' || tag === 'execa.$' || tag === 'zx.$') {
          const args = [this.fold(child(n, 'quasi')!)];
          out.push({ name: 'execa.execaCommand', args, keywords: {}, text: this.text(n) });
        }
        return;
      }
      if (n.type !== 'CallExpression' && n.type !== 'NewExpression') return;
      const name = this.qualify(child(n, 'callee'));
      if (name === undefined) return;
      const args = children(n, 'arguments').map((a) => this.fold(a));
      if (name.endsWith('.<computed>') || (Object.hasOwn(SPAWNERS, name) && !PYTHON_CALLS.test(name))) {
        const input = fed.get(n);
        out.push({ name, args, keywords: input ? { [FED_INPUT]: input } : {}, text: this.text(n) });
      }
    });
    return out;
  }
}

export function javascriptCalls(program: EsNode, source: string): ProgramCall[] {
  const reader = new JavascriptReader(program, source);
  return [...reader.calls(program), ...reader.escapes(program)];
}

export const javascriptLoads = (program: EsNode, source: string): ProgramEffect[] =>
  new JavascriptReader(program, source).loads(program);
