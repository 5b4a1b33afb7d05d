// How a code forge's CLI command reads (gh, glab, hub, tea, berg): the words that say what it does (`pr merge 12`),
// option values skipped, and for `gh api`/`glab api` the method it sends (fields without -X make a POST). The one
// reader for every judgement of a forge command (forge/checks.ts lists them); HTTP clients are read by
// programs/http/request.ts. Pure.
import type { CheckContext, Io } from '../../checks/types.js';
import { parseFlags, type Argv } from '../../engine/argv.js';
import { keyTable, names } from '../../engine/names.js';

/** Options of `gh api`/`glab api` that take a value (the value is not the path). */
const VALUED = /^(-H|--header|-q|--jq|-t|--template|--hostname|-p|--preview|--cache)$/;

/** `gh api -X POST repos/...`, `glab api --method PUT projects/...`: a writing call's method and path, else undefined. */
export function forgeApiWrite(args: readonly string[]): { method: string; path: string } | undefined {
  const at = args.indexOf('api');
  if (at < 0 || args.slice(0, at).some((t) => !t.startsWith('-'))) return undefined;
  let method: string | undefined;
  let path: string | undefined;
  let fields = false;
  for (let i = at + 1; i < args.length; i += 1) {
    const t = args[i]!;
    if (t === '-X' || t === '--method') method = args[(i += 1)];
    else if (/^(-X|--method=)./.test(t)) method = t.replace(/^(-X|--method=)/, '');
    else if (/^(-f|-F|--field|--raw-field|--input)$/.test(t)) {
      fields = true;
      i += 1;
    } else if (VALUED.test(t)) i += 1;
    else if (!t.startsWith('-') && path === undefined) path = t;
  }
  const m = (method ?? (fields ? 'POST' : 'GET')).toUpperCase();
  return path !== undefined && m !== 'GET' && m !== 'HEAD' ? { method: m, path } : undefined;
}

/** Options of the forges' subcommands that take a value (titles, bodies, the repository...). */
const SUBCOMMAND_VALUED = names(`
  -R --repo -b --body -F --body-file -t --title -m --message -B --base -H --head -l --label -a --assignee -d
  --description --notes -n
`);

/** Other spellings of a forge's objects (`tea pulls`, `hub pull-request`, `gh issues`). */
const ALIASES = keyTable({
  'pulls pull pull-request': 'pr',
  'merge-request': 'mr',
  issues: 'issue',
  releases: 'release',
  labels: 'label',
  repos: 'repo',
  milestones: 'milestone',
});

export interface ForgeCall {
  /** The words that say what the command does, option values skipped (`gh pr merge 12 --admin` → pr merge 12). */
  path: string[];
  /** The object acted on, other spellings resolved (`pulls` → pr), and the verb. */
  object?: string;
  verb?: string;
  /** A writing `api` call's method and path. */
  api?: { method: string; path: string };
}

/** Reads a forge CLI's command line; `az repos pr create` reads as `pr create`. */
export function forgeCall(cmd: Argv): ForgeCall {
  const path = parseFlags(cmd.args, SUBCOMMAND_VALUED).operands.map((o) => o.text);
  const [object, verb] = cmd.name === 'az' ? (path[0] === 'repos' ? path.slice(1) : []) : path;
  const api = forgeApiWrite(cmd.args.map((a) => a.text));
  return {
    path,
    ...(object ? { object: ALIASES[object] ?? object } : {}),
    ...(verb ? { verb } : {}),
    ...(api ? { api } : {}),
  };
}

/** A judgement of one forge command (what it publishes, merges, changes...), kept with its threat class. */
export type ForgeCheck = (call: ForgeCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
