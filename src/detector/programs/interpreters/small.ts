// Small languages that can run shell commands: dc (`!cmd`), m4 (`syscmd`, `esyscmd`, `include`), gnuplot
// (`system`, `!cmd`, backticks, pipes in `set output`/`plot '< cmd'`, `load`), R (`system`, `system2`, `pipe`,
// `source`) and Julia (`run(\`cmd\`)`, `include`). A command built at run time asks. Pure.
import { literal } from '../../engine/words.js';
import { shortened, type CheckContext } from '../../checks/types.js';

/** A finding's detail: what kind of program (`m4 program`) and its text, shortened. */
export const detailOf = (what: string, source: string): string => `${what}: ${shortened(source)}`;

/** dc: `!` runs the rest of the line as a command, except the comparisons `!<`, `!>`, `!=`. */
export function readDc(source: string, ctx: CheckContext): void {
  // `[...]` strings run as macros may hold `!` too; what follows it on the line is the command.
  for (const line of source.split('\n'))
    for (const m of line.matchAll(/!(?![<>=])(.*)$/g)) ctx.script(m[1]!.replace(/\]+\s*$/, ''));
  if (/\[[^\]]*![^<>=][^\]]*\]/.test(source))
    ctx.add('dynamic-command', `${detailOf('dc program', source)} (a macro runs a command)`);
}

/** m4's quoted text `` `...' `` with nesting, for arguments. */
function m4Argument(text: string): { value: string; quoted: boolean } {
  const t = text.trim();
  const quoted = /^(`[\s\S]*'|\[[\s\S]*\])$/.test(t);
  return { value: quoted ? t.slice(1, -1) : t, quoted };
}

/** m4: `syscmd(CMD)`, `esyscmd(CMD)` run CMD; `include(FILE)` reads more; a macro in an unquoted argument asks. */
export function readM4(source: string, ctx: CheckContext): void {
  const detail = detailOf('m4 program', source);
  const defined = new Set([...source.matchAll(/\b(?:define|pushdef)\(\s*[`[]?(\w+)/g)].map((m) => m[1]!));
  let direct = 0;
  for (const m of source.matchAll(/\b(m4_)?(e?syscmd|s?include)\(/g)) {
    // The argument runs to the matching parenthesis (quotes may hold parentheses).
    let depth = 1;
    let quote = 0;
    let i = m.index + m[0].length;
    for (; i < source.length && depth > 0; i += 1) {
      const c = source[i]!;
      if (c === '`' || c === '[') quote += 1;
      else if ((c === "'" || c === ']') && quote > 0) quote -= 1;
      else if (quote === 0 && c === '(') depth += 1;
      else if (quote === 0 && c === ')') depth -= 1;
    }
    const arg = m4Argument(source.slice(m.index + m[0].length, i - 1));
    if (/syscmd/.test(m[2]!)) direct += 1;
    const hidden =
      !arg.quoted &&
      [...arg.value.matchAll(/\w+/g)].some(
        (w) => defined.has(w[0]) || /^(m4_)?(indir|builtin|translit|substr|format|eval|defn)$/.test(w[0]),
      );
    if (hidden) ctx.add('dynamic-command', `${detail} (${m[2]} of text made by macros)`);
    else if (/include/.test(m[2]!)) ctx.runsFile(literal(arg.value), 'm4');
    else ctx.script(arg.value);
  }
  // `indir(`syscmd', ...)`, `define(x, defn(`esyscmd'))`: the command runs under another name.
  if ((source.match(/e?syscmd/g)?.length ?? 0) > direct)
    ctx.add('dynamic-command', `${detail} (syscmd called by another name)`);
}

const STRING = String.raw`(["'])((?:\\.|(?!\1)[^\\])*)\1`;

/** Calls with a string argument (`system("cmd")`), and the same call with anything else as its argument. */
function calls(
  source: string,
  names: string,
  ctx: CheckContext,
  detail: string,
  run: (text: string, name: string) => void,
): void {
  for (const m of source.matchAll(new RegExp(String.raw`\b(${names})\s*\(?\s*`, 'g'))) {
    const rest = source.slice(m.index + m[0].length);
    const lit =
      new RegExp(String.raw`^${STRING}\s*[,)\n;]`, 's').exec(rest) ??
      new RegExp(String.raw`^${STRING}\s*$`, 's').exec(rest);
    if (lit) run(lit[2]!.replace(/\\(["'\\])/g, '$1'), m[1]!);
    else ctx.add('dynamic-command', `${detail} (${m[1]} of text built at run time)`);
  }
}

/** gnuplot: `system "cmd"`, `!cmd`, backticks, `set output "|cmd"`, `plot "< cmd"`, `load`/`call` files. */
export function readGnuplot(source: string, ctx: CheckContext): void {
  const detail = detailOf('gnuplot program', source);
  calls(source, 'system', ctx, detail, (t) => ctx.script(t));
  for (const m of source.matchAll(/^\s*!(.*)$/gm)) ctx.script(m[1]!);
  for (const m of source.matchAll(/`([^`]*)`/g)) ctx.script(m[1]!);
  for (const m of source.matchAll(/(["'])\s*([|<])\s*((?:\\.|(?!\1)[^\\])*)\1/g)) ctx.script(m[3]!);
  for (const m of source.matchAll(/\b(?:load|call)\s+(["'])([^"']+)\1/g)) ctx.runsFile(literal(m[2]!), 'gnuplot');
}

/** R: `system("cmd")`, `system2("prog", args)`, `shell`, `pipe`, `source("x.R")`, `unlink(x, recursive = TRUE)`. */
export function readR(source: string, ctx: CheckContext): void {
  const detail = detailOf('R program', source);
  calls(source, 'system|shell|pipe', ctx, detail, (t) => ctx.script(t));
  calls(source, 'system2|processx::run|sys::exec_wait', ctx, detail, (t) => ctx.argv([literal(t)]));
  calls(source, 'source|sys\\.source', ctx, detail, (t) => ctx.runsFile(literal(t), 'r'));
  for (const m of source.matchAll(
    new RegExp(String.raw`\bunlink\s*\(\s*${STRING}[^)]*recursive\s*=\s*(TRUE|T)\b`, 'g'),
  ))
    ctx.argv(['rm', '-rf', '--', m[2]!].map(literal));
  if (/\beval\s*\(\s*parse\s*\(/.test(source)) ctx.add('dynamic-command', `${detail} (code parsed at run time)`);
}

/** Julia: commands in backticks (run, read, pipeline), `include("x.jl")`, `rm(p; recursive=true)`. */
export function readJulia(source: string, ctx: CheckContext): void {
  const detail = detailOf('julia program', source);
  for (const m of source.matchAll(/`([^`]*)`/g)) {
    if (/\$/.test(m[1]!)) ctx.add('dynamic-command', `${detail} (a command interpolated at run time)`);
    else ctx.script(m[1]!);
  }
  calls(source, 'include', ctx, detail, (t) => ctx.runsFile(literal(t), 'julia'));
  for (const m of source.matchAll(new RegExp(String.raw`\brm\s*\(\s*${STRING}[^)]*recursive\s*=\s*true`, 'g')))
    ctx.argv(['rm', '-rf', '--', m[2]!].map(literal));
  if (/\b(eval|Meta\.parse|include_string)\s*\(/.test(source) && !/\beval\s*\(\s*:/.test(source))
    ctx.add('dynamic-command', `${detail} (code evaluated at run time)`);
}
