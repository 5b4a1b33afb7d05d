// Tcl programs (tclsh, wish, expect; inline, on standard input, in a file, `-c`): `exec`, `open "|cmd"`, expect's
// `spawn`, `system` and the text it `send`s to a spawned shell, `file delete -force`, `source`, `eval` and friends.
// Words with a substitution (`$x`, `[cmd]`) are computed: a command built from them asks. Pure.
import { literal, type Word } from '../../engine/words.js';
import { shortened, type CheckContext } from '../../checks/types.js';

interface TclWord {
  text: string;
  /** Holds a `$variable` or `[command]` substitution: its value is known only at run time. */
  dynamic: boolean;
}

const TCL_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', '[': '[', $: '$' };

/** Where the bracket opened at `start` closes (backslashes escape); the end of the text when it does not. */
function closing(source: string, start: number, open: string, close: string): number {
  let level = 0;
  let i = start;
  for (; i < source.length; i += 1) {
    if (source[i] === '\\') i += 1;
    else if (source[i] === open) level += 1;
    else if (source[i] === close && --level === 0) break;
  }
  return i;
}

/** Splits Tcl source into commands of words, looking inside braces and brackets for nested scripts too. */
export function tclCommands(source: string, depth = 0): TclWord[][] {
  const commands: TclWord[][] = [];
  let words: TclWord[] = [];
  let i = 0;
  const end = (): void => {
    if (words.length > 0) commands.push(words);
    words = [];
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\n' || c === ';') {
      end();
      i += 1;
    } else if (c === ' ' || c === '\t' || c === '\r') i += 1;
    else if (c === '\\' && source[i + 1] === '\n') i += 2;
    else if (c === '#' && words.length === 0) {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if (c === '{') {
      const end = closing(source, i, '{', '}');
      words.push({ text: source.slice(i + 1, end), dynamic: false });
      i = end + 1;
    } else {
      // A bare or quoted word: substitutions make it dynamic; nested [commands] are scripts of their own.
      const quoted = c === '"';
      let text = '';
      let dynamic = false;
      if (quoted) i += 1;
      while (i < source.length) {
        const d = source[i]!;
        if (quoted ? d === '"' : /[\s;]/.test(d)) break;
        if (d === '\\' && i + 1 < source.length) {
          text += TCL_ESCAPES[source[i + 1]!] ?? source[i + 1]!;
          i += 2;
          continue;
        }
        if (d === '$') dynamic = true;
        if (d === '[') {
          const end = closing(source, i, '[', ']');
          if (depth < 8) commands.push(...tclCommands(source.slice(i + 1, end), depth + 1));
          text += source.slice(i, end + 1);
          dynamic = true;
          i = end + 1;
          continue;
        }
        text += d;
        i += 1;
      }
      if (quoted) i += 1;
      words.push({ text, dynamic });
    }
  }
  end();
  return commands;
}

const SHELLS = /^(\S*\/)?(ba|da|z|k|c|tc|fi)?sh$|^(\S*\/)?(ssh|telnet|su|sudo)$/;

/** Commands whose last argument is a script (a body, a callback). */
const LAST_IS_SCRIPT = /^(proc|foreach|lmap|after|apply)$/;
/** Commands of pattern-action pairs. */
const PATTERN_ACTIONS = /^(switch|expect|expect_after|expect_before|interact)$/;
/** Options of exec and spawn (not the command they run). */
const EXEC_OPTION = /^-(ignorestderr|keepnewline)$/;
const SPAWN_OPTION = /^-(noecho|console|nottycopy|nottyinit|pty|ignore|open|leaveopen)$/;

/**
 * Which arguments of a control command are scripts and which are expressions (`if {$x > 1} {...}`): an expression
 * runs only the `[commands]` inside it.
 */
function controlArgs(name: string, args: TclWord[]): { scripts: TclWord[]; exprs: TclWord[] } {
  const scripts: TclWord[] = [];
  const exprs: TclWord[] = [];
  if (name === 'if') {
    let expectExpr = true;
    for (const a of args) {
      if (a.text === 'then' || a.text === 'else') continue;
      if (a.text === 'elseif') expectExpr = true;
      else if (expectExpr) {
        exprs.push(a);
        expectExpr = false;
      } else scripts.push(a);
    }
  } else if (name === 'while') {
    if (args[0]) exprs.push(args[0]);
    scripts.push(...args.slice(1));
  } else if (name === 'for') {
    if (args[1]) exprs.push(args[1]);
    scripts.push(...[args[0], args[2], args[3]].filter((a): a is TclWord => a !== undefined));
  } else if (name === 'expr') exprs.push(...args);
  else if (LAST_IS_SCRIPT.test(name)) scripts.push(...args.slice(-1));
  else if (PATTERN_ACTIONS.test(name)) {
    // Pattern-action pairs, given one by one or as one braced list.
    const body =
      args.length > 0 && !args.at(-1)!.dynamic && args.length % 2 === 1 ? tclCommands(args.at(-1)!.text).flat() : args;
    for (let i = 1; i < body.length; i += 2) scripts.push(body[i]!);
  } else if (/^(catch|try|time|namespace|eval|uplevel|trap|dict|timeout)$/.test(name))
    scripts.push(...args.filter((a) => /[\n;[]|^\s*\w+\s/.test(a.text)));
  return { scripts, exprs };
}

/** The `[commands]` inside an expression. */
function bracketed(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] !== '[') continue;
    let level = 0;
    const start = i;
    for (; i < text.length; i += 1) {
      if (text[i] === '[') level += 1;
      else if (text[i] === ']' && --level === 0) break;
    }
    out.push(text.slice(start + 1, i));
  }
  return out;
}

/** An exec word for the shell: quoted, unless it is a pipe or a redirection. */
const shellWord = (t: string): string => (t === '|' || /^[<>]/.test(t) ? t : `'${t.replace(/'/g, `'\\''`)}'`);

const words = (ws: TclWord[]): Word[] => ws.map((w) => ({ ...literal(w.text), dynamic: w.dynamic }));

export function readTcl(source: string, ctx: CheckContext, depth = 0): void {
  const detail = `tcl program: ${shortened(source)}`;
  let spawnedShell = false;
  for (const cmd of tclCommands(source)) {
    const [head, ...args] = cmd;
    const name = head?.dynamic ? '' : (head?.text ?? '');
    if (head?.dynamic)
      ctx.add('dynamic-command', `${detail} (a command name computed at run time: ${head.text.slice(0, 40)})`);
    const computed = (what: string): void => ctx.add('dynamic-command', `${detail} (${what})`);
    // Braced arguments of control commands are scripts themselves; their conditions run what they bracket.
    if (depth < 8) {
      const { scripts, exprs } = controlArgs(name, args);
      for (const a of scripts) if (!a.dynamic) readTcl(a.text, ctx, depth + 1);
      for (const a of exprs) if (!a.dynamic) for (const inner of bracketed(a.text)) readTcl(inner, ctx, depth + 1);
    }
    switch (name) {
      case 'exec': {
        const rest = args.filter((a, i) => !(i === 0 && EXEC_OPTION.test(a.text)) && a.text !== '--');
        if (rest.some((a) => a.dynamic)) computed('exec of a command built at run time');
        else if (rest.length > 0) ctx.script(rest.map((a) => shellWord(a.text)).join(' '));
        break;
      }
      case 'open':
        if (args[0]?.text.startsWith('|')) {
          if (args[0].dynamic) computed('a pipe to a command built at run time');
          else ctx.script(args[0].text.slice(1));
        }
        break;
      case 'spawn': {
        const rest = args.filter((a) => !SPAWN_OPTION.test(a.text));
        if (rest.some((a) => a.dynamic)) computed('spawn of a command built at run time');
        else if (rest.length > 0) {
          ctx.argv(words(rest));
          if (SHELLS.test(rest[0]!.text)) spawnedShell = true;
        }
        break;
      }
      case 'system':
        if (args.some((a) => a.dynamic)) computed('system of a command built at run time');
        else ctx.script(args.map((a) => a.text).join(' '));
        break;
      case 'send':
      case 'exp_send': {
        // Text typed into a shell the program spawned is a command line of that shell.
        const text = args.filter((a) => !/^-(-|s|h|i|raw|null|break)$/.test(a.text)).at(-1);
        if (spawnedShell && text) {
          if (text.dynamic) computed('text sent to a shell is built at run time');
          else ctx.script(text.text.replace(/\r/g, '\n'));
        }
        break;
      }
      case 'file':
        if (args[0]?.text === 'delete') {
          const force = args.some((a) => a.text === '-force');
          const paths = args.slice(1).filter((a) => a.text !== '-force' && a.text !== '--');
          if (paths.some((a) => a.dynamic)) computed('a file deleted at a path computed at run time');
          else if (paths.length > 0)
            ctx.argv([literal('rm'), literal(force ? '-rf' : '-f'), literal('--'), ...words(paths)]);
        }
        break;
      case 'source':
        if (args.at(-1)?.dynamic) computed('a file sourced from a path computed at run time');
        else if (args.at(-1)) ctx.runsFile(literal(args.at(-1)!.text), 'tcl');
        break;
      case 'load':
        ctx.add('unread-script', `${detail} (load brings in compiled code)`);
        break;
      case 'eval':
      case 'uplevel':
      case 'subst':
      case 'interp':
        if (args.some((a) => a.dynamic)) computed(`${name} of text built at run time`);
        else if (name !== 'subst' && depth < 8) readTcl(args.map((a) => a.text).join(' '), ctx, depth + 1);
        break;
    }
  }
}
