// Terminal multiplexers, which run commands given to them and type text into the programs they host: tmux
// (new-session/new-window/split-window/respawn CMD, run-shell, if-shell, pipe-pane, `#(cmd)` formats, send-keys into
// a pane, source-file and -f configuration files) and screen (a command to start, -X stuff/exec/screen, -c screenrc).
// Text typed into a pane is judged as a command line of the shell there. Pure.
import { literal, type Word } from '../../engine/words.js';
import type { Argv } from '../../engine/argv.js';
import { show, type Check, type CheckContext } from '../../checks/types.js';
import { screenKills, tmuxKills } from '../../checks/shared-processes.js';

/** tmux key names that end a line when sent. */
const ENTER = /^(Enter|C-m|C-j|KPEnter|\^M|\^J)$/i;

/** The first operand after options (and the values of `valueOpts`). */
function operandsAfter(args: Word[], valueOpts: string[]): Word[] {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-') && args[i]!.text !== '-') {
    if (args[i]!.text === '--') return args.slice(i + 1);
    i += valueOpts.includes(args[i]!.text) ? 2 : 1;
  }
  return args.slice(i);
}

const SESSION_VERBS =
  /^(new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw)$/;
const SESSION_OPTS = ['-s', '-n', '-t', '-c', '-x', '-y', '-F', '-e', '-l', '-f'];

/** One tmux command (its name and arguments). */
export function tmuxCommand(words: Word[], ctx: CheckContext, detail: string, cmd?: Argv): void {
  const [verb, ...args] = words;
  const texts = words.map((w) => w.text);
  if (cmd) tmuxKills(texts, cmd, ctx);
  const name = verb?.text ?? '';
  const line = (ws: Word[]): void => {
    if (ws.some((w) => w.dynamic)) ctx.add('dynamic-command', `${detail} (a command computed at run time)`);
    else if (ws.length > 0) ctx.script(ws.map((w) => w.text).join(' '));
  };
  if (SESSION_VERBS.test(name)) line(operandsAfter(args, SESSION_OPTS));
  else if (name === 'run-shell' || name === 'run') line(operandsAfter(args, ['-t', '-d', '-c']));
  else if (name === 'if-shell' || name === 'if') {
    const [test, ...then] = operandsAfter(args, ['-t']);
    if (test && !args.some((a) => /^-[a-zA-Z]*F/.test(a.text))) line([test]);
    for (const t of then) tmuxScript(t.text, ctx, detail);
  } else if (name === 'pipe-pane' || name === 'pipep') line(operandsAfter(args, ['-t']));
  else if (name === 'send-keys' || name === 'send') {
    // Keys typed into the pane's program (a shell, usually): what ends with Enter runs as a command line.
    const keys = operandsAfter(args, ['-t', '-N']);
    const literalKeys = args.some((a) => /^-[a-zA-Z]*l/.test(a.text));
    let text = '';
    for (const k of keys) {
      if (k.dynamic) return ctx.add('dynamic-command', `${detail} (keys computed at run time are typed into a pane)`);
      text += !literalKeys && ENTER.test(k.text) ? '\n' : !literalKeys && /^(Space)$/i.test(k.text) ? ' ' : k.text;
    }
    if (text.trim() !== '') ctx.script(text);
  } else if (name === 'source-file' || name === 'source') {
    for (const f of operandsAfter(args, ['-t'])) ctx.runsFile(f, 'tmux');
  } else {
    // A command kept for later: a hook, a key binding, default-command.
    const rest = args.filter((a) => !a.text.startsWith('-'));
    if (/^(set-option|set)$/.test(name) && /^(default-command|default-shell)$/.test(rest[0]?.text ?? ''))
      line(rest.slice(1));
    else if (/^(set-hook|bind-key|bind|confirm-before|confirm|command-prompt)$/.test(name) && rest.length > 1)
      tmuxCommand(rest.slice(name.startsWith('set') || name.startsWith('bind') ? 1 : 0), ctx, detail);
  }
  // A format with #(cmd) runs cmd (display-message, status lines).
  for (const w of args) for (const m of w.text.matchAll(/#\(([^)]*)\)/g)) ctx.script(m[1]!);
}

/** tmux commands in text: a configuration file, or a command string given to a hook or binding. */
export function tmuxScript(text: string, ctx: CheckContext, detail = `tmux commands: ${text.slice(0, 80)}`): void {
  for (const raw of text.split(/\n|\s\\?;\s/)) {
    const words = [...raw.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g)].map((m) => {
      const t = m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3]!;
      return { ...literal(t), dynamic: m[2] !== undefined && /\$/.test(t) };
    });
    if (words.length === 0 || words[0]!.text.startsWith('#')) continue;
    tmuxCommand(words, ctx, detail);
  }
}

export const tmux: Check = (cmd, _io, ctx) => {
  const detail = show(cmd);
  const global = ['-L', '-S', '-f', '-c', '-T'];
  const args = cmd.args;
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-')) {
    if (args[i]!.text === '-f' && args[i + 1]) ctx.runsFile(args[i + 1]!, 'tmux');
    if (args[i]!.text === '-c' && args[i + 1]) ctx.script(args[i + 1]!.text);
    i += global.includes(args[i]!.text) ? 2 : 1;
  }
  // Commands are separated by a `;` word (`tmux new -d \; send-keys ...`).
  let start = i;
  for (let j = i; j <= args.length; j += 1) {
    if (j === args.length || args[j]!.text === ';' || args[j]!.text === '\\;') {
      if (j > start) tmuxCommand(args.slice(start, j), ctx, detail, cmd);
      start = j + 1;
    }
  }
};

/** screen [-dmS NAME] CMD..., screen -X stuff TEXT / exec CMD / screen CMD, screen -c SCREENRC. */
export const screen: Check = (cmd, _io, ctx) => {
  const detail = show(cmd);
  const args = cmd.args;
  screenKills(cmd, ctx);
  const x = args.findIndex((a) => a.text === '-X');
  const rc = args.findIndex((a) => a.text === '-c');
  if (rc >= 0 && args[rc + 1]) ctx.runsFile(args[rc + 1]!, 'screenrc');
  if (x >= 0) return screenCommand(args.slice(x + 1), ctx, detail);
  const command = operandsAfter(args, ['-S', '-c', '-e', '-h', '-p', '-T', '-t', '-L', '-Logfile', '-X']);
  if (command.length > 0) ctx.argv(command);
};

/** One screen command: stuff TEXT types into the window; exec/screen CMD runs CMD. */
function screenCommand(words: Word[], ctx: CheckContext, detail: string): void {
  const [verb, ...rest] = words;
  if (!verb) return;
  if (rest.some((w) => w.dynamic)) {
    if (/^(stuff|exec|screen|backtick)$/.test(verb.text))
      ctx.add('dynamic-command', `${detail} (${verb.text} of text computed at run time)`);
    return;
  }
  const typed = rest.map((w) => w.text).join(' ');
  if (verb.text === 'stuff') ctx.script(typed.replace(/\^M|\\r|\\n|\r/g, '\n'));
  else if (verb.text === 'exec') ctx.argv(rest.filter((w) => !/^[.!:|]+$/.test(w.text)));
  else if (verb.text === 'screen') ctx.argv(operandsAfter(rest, ['-t', '-T', '-h']));
  else if (verb.text === 'backtick' && rest.length > 3) ctx.argv(rest.slice(3));
  else if (verb.text === 'source' && rest[0]) ctx.runsFile(rest[0], 'screenrc');
}

/** A screenrc: one screen command a line. */
export function screenScript(text: string, ctx: CheckContext): void {
  const detail = `screenrc: ${text.slice(0, 80)}`;
  for (const raw of text.split('\n')) {
    const words = [...raw.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => literal(m[1] ?? m[2] ?? m[3]!));
    if (words.length > 0 && !words[0]!.text.startsWith('#')) screenCommand(words, ctx, detail);
  }
}
