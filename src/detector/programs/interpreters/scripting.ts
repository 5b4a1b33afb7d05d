// Perl, Ruby, PHP and Lua code read with patterns for what the one-liner checks (checks/code.ts) do not see: files
// they load (`require_relative`, `do "x.pl"`, `use lib`, `include 'x.php'`, `dofile`, `require "mod"` of the
// project), commands behind pipe opens (`open(F, "cmd |")`, Ruby's `open("|cmd")`), and string evaluation. A file or
// command computed at run time asks. Pure.
import { dirOf, joinKey } from '../loaders/run-file.js';
import type { CheckContext } from '../../checks/types.js';
import { detailOf } from './small.js';

/** A quoted string whose quote is capture group `n` (its text is group n + 1). */
const stringAt = (n: number): string => `(["'])((?:\\\\.|(?!\\${n})[^\\\\])*)\\${n}`;

/** Strings in Perl and Ruby interpolate `$x`, `@x`, `#{...}` inside double quotes. */
const interpolated = (quote: string, text: string): boolean => quote === '"' && /(^|[^\\])([$@]\w|#\{)/.test(text);

/** The directory of the file this code was read from (relative loads start there), or the working directory. */
const base = (ctx: CheckContext): string =>
  ctx.origin?.file !== undefined ? dirOf(ctx.origin.file) : (ctx.keyOf('.') ?? '.');

/** A file's key under each library directory of the code's origin. */
const inRoots = (ctx: CheckContext, file: string): string[] => (ctx.origin?.roots ?? []).map((r) => joinKey(r, file));

function loadFrom(ctx: CheckContext, language: string, candidates: string[]): void {
  for (const key of candidates) ctx.loads(key, language, { file: key, roots: ctx.origin?.roots ?? [] });
}

/** A command behind a pipe open: judged, or asks when it is built at run time. */
function pipeOpen(cmd: string | undefined, built: boolean, ctx: CheckContext, detail: string): void {
  if (cmd === undefined || built) ctx.add('dynamic-command', `${detail} (a pipe open of a command built at run time)`);
  else ctx.script(cmd);
}

function perl(source: string, ctx: CheckContext, detail: string): void {
  // use lib 'dir' / use lib "dir": more library directories (relative to the working directory).
  for (const m of source.matchAll(
    new RegExp(String.raw`\buse\s+lib\s+(?:qw\s*[(\[{/]([^)\]}/]*)[)\]}/]|${stringAt(2)})`, 'g'),
  )) {
    const dirs = m[1] !== undefined ? m[1].trim().split(/\s+/) : [m[3]!];
    for (const d of dirs) {
      const key = ctx.keyOf(d);
      if (typeof key === 'string' && ctx.origin && !ctx.origin.roots.includes(key)) ctx.origin.roots.push(key);
    }
  }
  // use/require Foo::Bar: Foo/Bar.pm under each library directory (-I, use lib).
  for (const m of source.matchAll(/\b(?:use|require)\s+([A-Z]\w*(?:::\w+)*)\s*[;\s(]/g))
    loadFrom(ctx, 'perl', inRoots(ctx, `${m[1]!.replace(/::/g, '/')}.pm`));
  // do FILE, require FILE: run the file's code.
  for (const m of source.matchAll(
    new RegExp(String.raw`(?<![\w.:>$])(do|require)\b(?![.:])\s*\(?\s*(?:${stringAt(2)}|(\$\w+))`, 'g'),
  )) {
    if (m[4] !== undefined || interpolated(m[2]!, m[3]!))
      ctx.add('dynamic-command', `${detail} (${m[1]} of a file named at run time)`);
    else loadFrom(ctx, 'perl', [joinKey(ctx.keyOf('.') ?? '.', m[3]!)]);
  }
  // open(FH, "cmd |"), open(FH, "| cmd"), open(my $fh, '-|', 'cmd', ...): a command behind a file handle.
  for (const m of source.matchAll(
    new RegExp(String.raw`\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*${stringAt(1)}(?:\s*,\s*${stringAt(3)})?`, 'g'),
  )) {
    const [mode, cmd] = [m[2]!, m[4]];
    if (/^\s*-?\|\s*$|^\s*\|-\s*$/.test(mode))
      pipeOpen(cmd, cmd !== undefined && interpolated(m[3]!, cmd), ctx, detail);
    else if (/^\s*\||\|\s*$/.test(mode))
      pipeOpen(mode.replace(/^\s*\|\s*|\s*\|\s*$/g, ''), interpolated(m[1]!, mode), ctx, detail);
  }
  if (/\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*\$/.test(source))
    ctx.add('dynamic-command', `${detail} (open with a mode or file built at run time)`);
  // String eval (eval "..." / eval $code); `eval { ... }` is exception handling.
  for (const m of source.matchAll(/\beval\s*(?!\{)(\(?\s*(["'$]))/g))
    if (m[2] === '$') ctx.add('dynamic-command', `${detail} (eval of code built at run time)`);
}

function ruby(source: string, ctx: CheckContext, detail: string): void {
  for (const m of source.matchAll(
    new RegExp(
      String.raw`(?<![\w.:])(require_relative|require|load)\b(?![.:])\s*\(?\s*(?:${stringAt(2)}|([\w.:]+))`,
      'g',
    ),
  )) {
    const [how, quote, name, other] = [m[1]!, m[2], m[3], m[4]];
    if (name === undefined || interpolated(quote!, name)) {
      if (other !== undefined || (quote && interpolated(quote, name ?? '')))
        ctx.add('dynamic-command', `${detail} (${how} of a file named at run time)`);
      continue;
    }
    const withExt = /\.(rb|so|bundle)$/.test(name) ? name : `${name}.rb`;
    if (how === 'require_relative') loadFrom(ctx, 'ruby', [joinKey(base(ctx), withExt)]);
    else if (/^\.{0,2}\//.test(name) || how === 'load')
      loadFrom(ctx, 'ruby', [joinKey(ctx.keyOf('.') ?? '.', withExt)]);
    else loadFrom(ctx, 'ruby', inRoots(ctx, withExt));
  }
  // open("|cmd"), Kernel.open("| cmd"), IO.read("|cmd"): a leading pipe runs the rest.
  for (const m of source.matchAll(
    new RegExp(
      String.raw`(?:\bKernel\.|\bIO\.|(?<![\w.]))(?:open|read|readlines|foreach|write|binread|popen)\s*\(?\s*${stringAt(1)}`,
      'g',
    ),
  ))
    if (m[2]!.startsWith('|')) pipeOpen(m[2]!.slice(1), interpolated(m[1]!, m[2]!), ctx, detail);
  if (/(?:\bKernel\.|(?<![\w.]))open\s*\(?\s*[a-z_]\w*\s*[,)]/.test(source))
    ctx.add('dynamic-command', `${detail} (open of a name computed at run time may run a command)`);
}

function php(source: string, ctx: CheckContext, detail: string): void {
  for (const m of source.matchAll(
    new RegExp(
      String.raw`(?<![\w>$:])(include|include_once|require|require_once)\b\s*\(?\s*(?:${stringAt(2)}|([$\w]))`,
      'g',
    ),
  )) {
    if (m[4] !== undefined || interpolated(m[2]!, m[3]!))
      ctx.add('dynamic-command', `${detail} (${m[1]} of a file named at run time)`);
    else loadFrom(ctx, 'php', [joinKey(/^\.{1,2}\//.test(m[3]!) ? (ctx.keyOf('.') ?? '.') : base(ctx), m[3]!)]);
  }
}

function lua(source: string, ctx: CheckContext, detail: string): void {
  for (const m of source.matchAll(
    new RegExp(String.raw`(?<![\w.:])(dofile|loadfile|require)\b\s*\(?\s*(?:${stringAt(2)}|([\w.]+))`, 'g'),
  )) {
    if (m[4] !== undefined) {
      ctx.add('dynamic-command', `${detail} (${m[1]} of a file named at run time)`);
      continue;
    }
    const name = m[3]!;
    // require "a.b" searches ./a/b.lua and ./a/b/init.lua (package.path starts with ./?.lua).
    const here = ctx.keyOf('.') ?? '.';
    const path = name.replace(/\./g, '/');
    if (m[1] === 'require') loadFrom(ctx, 'lua', [joinKey(here, `${path}.lua`), joinKey(here, `${path}/init.lua`)]);
    else loadFrom(ctx, 'lua', [joinKey(here, name)]);
  }
  if (/\b(load|loadstring)\s*\(\s*[^"'\s)]/.test(source))
    ctx.add('dynamic-command', `${detail} (code built at run time is loaded)`);
}

const READERS: Record<string, (source: string, ctx: CheckContext, detail: string) => void> = { perl, ruby, php, lua };

/** The loads and pipe opens of Perl, Ruby, PHP and Lua code. */
export function readScripting(source: string, language: string, ctx: CheckContext): void {
  if (Object.hasOwn(READERS, language)) READERS[language]!(source, ctx, detailOf(`${language} code`, source));
}
