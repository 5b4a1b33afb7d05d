// What a program loads from the project by itself: Python modules it imports (from its script's directory, the
// working directory, PYTHONPATH and the directories it adds to sys.path; relative imports from its package), files
// it runs (runpy), JavaScript modules it imports or requires by relative path. Each is judged like the program.
// Modules of installed packages (site-packages, node_modules) are not read. Pure.
import { decodeBase64 } from '../../engine/decode.js';
import { OWN_FILE, type ProgramEffect } from '../code/effects.js';
import type { CheckContext, Origin } from '../../checks/types.js';
import { dirOf, joinKey } from './run-file.js';

type LoadEffect = Extract<ProgramEffect, { kind: 'load' }>;

/** The working directory as a key; undefined when it is known only at run time. */
export const cwdKey = (ctx: CheckContext): string | undefined => {
  const k = ctx.keyOf('.');
  return typeof k === 'string' ? k : undefined;
};

/** The origin of code given inline (`python -c`, standard input): modules are found in the working directory. */
export const inlineOrigin = (ctx: CheckContext): Origin => ({ roots: [cwdKey(ctx)].filter((k) => k !== undefined) });

/** A path the program wrote, as a key: relative to its own file when built from `__file__`, else to the working directory. */
function pathKey(path: string, origin: Origin, ctx: CheckContext): string | null | undefined {
  if (path.includes(OWN_FILE))
    return joinKey('.', path.replaceAll(OWN_FILE, origin.file ?? `${ctx.keyOf('.') ?? '.'}/-`));
  return ctx.keyOf(path);
}

/** Python's candidates for `a.b.c` under one directory: each package's __init__.py and each module file. */
export function pythonCandidates(dir: string, module: string, names: readonly string[] = []): string[] {
  const parts = module === '' ? [] : module.split('.');
  const out: string[] = [];
  for (let i = 1; i <= parts.length; i += 1) {
    const at = joinKey(dir, parts.slice(0, i).join('/'));
    out.push(`${at}.py`, `${at}/__init__.py`);
  }
  // `from a.b import c`: c may be a submodule.
  const base = joinKey(dir, parts.join('/') || '.');
  for (const n of names) if (/^\w+$/.test(n)) out.push(joinKey(base, `${n}.py`), joinKey(base, `${n}/__init__.py`));
  return out;
}

const JS_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx'];

/** Node's candidates for a relative specifier: the file, with each extension, or a directory's index. */
export function javascriptCandidates(key: string): string[] {
  if (/\.(json|wasm)$/.test(key)) return [];
  if (/\.[cm]?[jt]sx?$|\.node$/.test(key)) return [key];
  return [key, ...JS_EXTENSIONS.map((e) => `${key}${e}`), ...JS_EXTENSIONS.slice(0, 4).map((e) => `${key}/index${e}`)];
}

function python(e: LoadEffect, origin: Origin, ctx: CheckContext): void {
  const sub = (key: string): Origin => ({ file: key, roots: origin.roots });
  if (e.how === 'root') {
    const key = pathKey(e.path, origin, ctx);
    if (key === null) ctx.add('unread-script', `modules are loaded from ${e.path}, a directory known only at run time`);
    else if (key !== undefined && !origin.roots.includes(key)) origin.roots.push(key);
    return;
  }
  if (e.how === 'file') {
    const key = pathKey(e.path, origin, ctx);
    if (key === null) ctx.add('unread-script', `${e.path} (in a directory known only at run time)`);
    else if (key !== undefined) ctx.loads(key, 'python', sub(key));
    return;
  }
  if (e.level > 0) {
    // `from ..pkg import x` in a module: relative to its package; in code given inline there is none.
    if (origin.file === undefined) return;
    let dir = dirOf(origin.file);
    for (let i = 1; i < e.level; i += 1) dir = dirOf(dir);
    for (const key of pythonCandidates(dir, e.module, e.names)) ctx.loads(key, 'python', sub(key));
    return;
  }
  for (const root of origin.roots)
    for (const key of pythonCandidates(root, e.module, e.names)) ctx.loads(key, 'python', sub(key));
}

/** A module specifier JavaScript loads: a relative or absolute path of the project, or code in a `data:` URL. */
export function loadJavascript(spec: string, origin: Origin | undefined, ctx: CheckContext): void {
  const data = /^data:(?:text|application)\/(?:javascript|ecmascript)(;base64)?,(.*)$/s.exec(spec);
  if (data) {
    let code: string | undefined;
    try {
      code = data[1] ? decodeBase64(data[2]!) : decodeURIComponent(data[2]!);
    } catch {
      code = undefined;
    }
    if (code === undefined) ctx.add('dynamic-command', `${spec.slice(0, 80)}: code that could not be decoded`);
    else ctx.code(code, 'javascript', origin);
    return;
  }
  if (/^data:/.test(spec)) return ctx.add('dynamic-command', `${spec.slice(0, 80)}: code the detector does not read`);
  const path = spec.startsWith('file://') ? spec.slice('file://'.length) : spec;
  // Bare names are installed packages (node_modules) or Node's own modules: not read, unless NODE_PATH names
  // directories to look in first (`NODE_PATH=lib node -e 'require("x")'` loads lib/x.js).
  if (!/^(\.{1,2}\/|\/)/.test(path) && path !== '.' && path !== '..') {
    const nodePath = path.startsWith('node:') ? undefined : ctx.commandEnv.get('NODE_PATH');
    if (nodePath?.dynamic) ctx.add('dynamic-command', `${spec}: NODE_PATH is set to a value known only at run time`);
    else if (nodePath)
      for (const dir of nodePath.text.split(':').filter((d) => d !== '')) {
        const root = ctx.keyOf(dir);
        if (typeof root !== 'string') continue;
        for (const key of javascriptCandidates(joinKey(root, path)))
          ctx.loads(key, 'javascript', { file: key, roots: [] });
      }
    return;
  }
  const base = origin?.file !== undefined ? dirOf(origin.file) : (ctx.keyOf('.') ?? null);
  if (base === null) return ctx.add('unread-script', `${spec} (after a cd to a directory known only at run time)`);
  for (const key of javascriptCandidates(joinKey(base, path))) ctx.loads(key, 'javascript', { file: key, roots: [] });
}

/** Judges what a program's load effect brings in, relative to where the program came from. */
export function programLoad(e: LoadEffect, ctx: CheckContext): void {
  const origin = ctx.origin ?? inlineOrigin(ctx);
  if (e.language === 'python') python(e, origin, ctx);
  else loadJavascript(e.how === 'import' ? e.module : e.path, ctx.origin, ctx);
}
