// How a git command line reads: the global options before the subcommand (`-C DIR`, `-c KEY=VALUE`, `--git-dir`,
// `--exec-path=DIR`, `--config-env`...), then the subcommand and its words. The one reader of git's global options
// for every judgement of a git command (git/checks.ts lists them): `git -C repo rm AGENTS.md` is judged like
// `git rm AGENTS.md`. Pure.
import type { CheckContext, Io } from '../../checks/types.js';
import type { Argv } from '../../engine/argv.js';
import { names } from '../../engine/names.js';
import { literal, type Word } from '../../engine/words.js';
import { joinKey } from '../loaders/run-file.js';
import type { GitSetting } from './config.js';

/** Global options that take a value, written next or attached with `=` (`--git-dir=x`). */
const GLOBAL_VALUED = names(`-C -c --git-dir --work-tree --namespace --exec-path --config-env --super-prefix`);

export interface GitCall {
  /** `-C DIR`, joined when given more than once (relative to the current directory). */
  dir?: string;
  /** `--git-dir DIR`. */
  gitDir?: string;
  /** `--exec-path=DIR`: where git finds its subcommands' programs. */
  execPath?: Word;
  /** `-c KEY=VALUE` settings in order, keys in lower case (`-c KEY` alone is `true`). */
  settings: GitSetting[];
  /** A setting is taken from a variable at run time (`--config-env`). */
  configEnv: boolean;
  /** The subcommand's word, and its text. */
  subWord?: Word;
  sub?: string;
  /** The words after the subcommand. */
  rest: Word[];
  /** `git config [set] [--global|-f FILE] KEY VALUE` (the new and the old syntax): the setting written. */
  configWrite?: GitSetting;
  /** The same as written: the key's and the value's words. */
  configWords?: { key: Word; value: Word };
}

/** Reads a git command line; `cmd` is git's argv (its name is not checked). */
export function gitCall(cmd: Argv): GitCall {
  const call: GitCall = { settings: [], configEnv: false, rest: [] };
  const i = globalOptions(call, cmd.args);
  call.subWord = cmd.args[i];
  call.sub = cmd.args[i]?.text;
  call.rest = cmd.args.slice(i + 1);
  expandAliases(call);
  const written = call.sub === 'config' ? configWrite(call.rest) : undefined;
  if (written) {
    call.configWords = written;
    call.configWrite = { key: written.key.text.toLowerCase(), value: written.value.text };
  }
  return call;
}

/** Reads the global options at the start of `args` into `call`; returns the index of the subcommand. */
function globalOptions(call: GitCall, args: readonly Word[]): number {
  let i = 0;
  for (; i < args.length && args[i]!.text.startsWith('-'); i += 1) {
    const t = args[i]!.text;
    const eq = t.startsWith('--') ? t.indexOf('=') : -1;
    // `-cKEY=VALUE` is read as `-c KEY=VALUE` (generous: git itself wants them apart).
    const [name, attached] =
      eq > 0 ? [t.slice(0, eq), t.slice(eq + 1)] : /^-c./.test(t) ? ['-c', t.slice(2)] : [t, undefined];
    // `--exec-path` alone prints the directory; only `--exec-path=DIR` sets it.
    if (!GLOBAL_VALUED.includes(name) || (name === '--exec-path' && attached === undefined)) continue;
    const value = attached !== undefined ? { ...args[i]!, text: attached } : args[(i += 1)];
    if (!value) break;
    if (name === '-C') call.dir = call.dir ? joinKey(call.dir, value.text) : value.text;
    else if (name === '--git-dir') call.gitDir = value.text;
    else if (name === '--exec-path') call.execPath = value;
    else if (name === '--config-env') call.configEnv = true;
    else if (name === '-c') {
      const at = value.text.indexOf('=');
      call.settings.push({
        key: (at < 0 ? value.text : value.text.slice(0, at)).toLowerCase(),
        value: at < 0 ? 'true' : value.text.slice(at + 1),
      });
    }
  }
  return i;
}

/**
 * `git -c alias.p='push --force' p`: an alias given on the command line that names another subcommand (one starting
 * with `!` runs a shell command: hooks.ts) is read as that subcommand with its words first, split as git splits them
 * (quotes, backslashes), its own global options (`-c k=v push -f`) read as the line's.
 */
function expandAliases(call: GitCall): void {
  for (let depth = 0; depth < 8 && call.sub !== undefined; depth += 1) {
    const alias = call.settings.findLast((s) => s.key === `alias.${call.sub!.toLowerCase()}`)?.value.trim();
    if (alias === undefined || alias === '' || alias.startsWith('!')) return;
    const words = splitAlias(alias).map(literal);
    const i = globalOptions(call, words);
    call.sub = words[i]?.text;
    call.subWord = words[i];
    call.rest = [...words.slice(i + 1), ...call.rest];
  }
}

/** An alias's words as git's split_cmdline reads them: blanks part them, '...' and "..." quote, `\` escapes. */
export const splitAlias = (text: string): string[] =>
  (text.match(/(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\])+/g) ?? []).map((w) =>
    w.replace(
      /'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)/g,
      (_, sq?: string, dq?: string, c?: string) => (sq ?? dq?.replace(/\\(.)/g, '$1') ?? c)!,
    ),
  );

/** The key and value `git config` writes, or undefined when it reads, lists or unsets. */
function configWrite(words: readonly Word[]): { key: Word; value: Word } | undefined {
  const ops: Word[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const t = words[i]!.text;
    if (t === 'set' && ops.length === 0) continue;
    if (/^(get|--get|--get-all|--list|-l|--unset|--unset-all|unset|list|--get-regexp|--get-urlmatch)$/.test(t))
      return undefined;
    if (/^(-f|--file|--blob|--type|--default|--comment|--value)$/.test(t)) i += 1;
    else if (!t.startsWith('-')) ops.push(words[i]!);
  }
  return ops.length >= 2 ? { key: ops[0]!, value: ops[1]! } : undefined;
}

/** A judgement of one git command (what it destroys, publishes, runs, hides...), kept with its threat class. */
export type GitCheck = (call: GitCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
