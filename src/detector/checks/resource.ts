// Destructive verbs of resource CLIs, by the shape of the argv rather than by a list of CLIs: `<cli> [group...]
// <verb> [args]` where the verb (or a part of a compound verb: delete-stack, apps:destroy) destroys, and scaling to
// zero. Applies to CLIs no rule has heard of. Pure.
import type { Argv } from '../engine/argv.js';
import type { Word } from '../engine/words.js';
import { sqlFindings } from './data.js';
import { checkGrant, parts as verbParts } from './grants.js';
import { checkProduction } from './production.js';
import { show, stdinText, valueAt, type Check, type CheckContext, type Io } from './types.js';
import { keyTable, names } from '../engine/names.js';
import type { PackageCheck } from '../programs/packages/call.js';

/** Verbs (or parts of compound verbs) that destroy, disable or take away. */
const DESTRUCTIVE = new Set(
  names(`
  delete del deletion destroy remove rm rb rmi terminate purge prune drop wipe erase uninstall unpublish yank
  deprecate reset flush truncate drain cordon disable revoke detach deregister unregister unset decommission teardown
  nuke zap leave fresh
`),
);

/** Verbs that take something away when they lead a compound verb (stop-instances, release-address, pg:killall) or end
 * a deep path (gcloud compute instances stop); alone after the CLI (docker stop, npm stop) they are routine. */
const COMPOUND_ONLY = new Set(
  names(`
  stop release disassociate deallocate undefine seal killall kill shutdown suspend evict expire discard abandon retire
  close
`),
);

/** Script names that say what they do: ./teardown.sh, k3s-uninstall.sh, reset-db.sh. */
const SCRIPT_VERBS = new Set(names(`uninstall destroy teardown nuke wipe purge drop reset delete remove erase`));

/** Verbs that only ask about or rehearse an action: what follows them is not done. */
const HYPOTHETICAL = new Set(names(`can-i explain help plan preview diff template search lint validate completion`));

/** Verbs that run a nested command: what follows is judged as that command (docker exec, kubectl exec), not as a verb. */
const RUNS_NESTED = new Set(['exec', 'run', 'ssh', 'console', 'shell', 'sh', 'bash', 'x', 'dlx']);

/** Options whose value is commonly a name (so it is not a verb of the path): `--profile prod`, `-n staging`. */
const VALUE_OPTS = new Set(
  names(`
  --profile --region --zone --project --context --namespace -n -g --resource-group -a --app --output -o --format
  --config -c --cluster --account --subscription --org --team --env -e --environment --stack -s -p --host -H
  --kubeconfig --scope --site -R --repo
`),
);

/** Flags that destroy whatever the verb is (nomad job stop -purge, minikube delete --purge, kubectl apply --prune). */
const DESTRUCTIVE_FLAGS =
  /^--?(purge|prune|destroy|wipe|force-reset|force-delete|delete|delete-all|cascade|accept-data-loss|allow-data-loss|delete-destination|no-deletion-protection|disable-deletion-protection|(remove|delete|destroy|wipe)-[\w-]*(storage|data|volumes?|disks?|snapshots?|backups?))(=(true|all|foreground|background))?$/;

/** Options that set a count, size or replica number: a zero value takes the service away. */
const SIZE_OPTS = /^--?([\w-]*-)?(replicas|count|capacity|size|nodes|instances)$/;

const IDENTIFIER = /^[A-Za-z][\w:-]*$/;

const parts = (word: string): string[] => verbParts(word, /[-:_.]/);

export interface Path {
  /** The leading words (the subcommand path), option values skipped. */
  verbs: string[];
  /** Where the path stopped (a nested command, a hypothetical verb, `--`), or -1. */
  stop: number;
  hypothetical: boolean;
}

/** The subcommand path of an argv: up to five identifier-like operands from the front. */
export function subcommandPath(args: Word[]): Path {
  const verbs: string[] = [];
  for (let i = 0; i < args.length && verbs.length < 5; i += 1) {
    const a = args[i]!;
    const t = a.text;
    if (t === '--') return { verbs, stop: i, hypothetical: false };
    if (t.startsWith('-')) {
      // The word after an option is taken as its value (--filter delete, -k delete): a verb rarely follows a flag.
      if (!t.includes('=') && (VALUE_OPTS.has(t) || (args[i + 1] && !args[i + 1]!.text.startsWith('-')))) i += 1;
      continue;
    }
    // govc vm.destroy, ... cluster.rm: a dotted command word, first in the path (later, `x.delete` is a name).
    const dotted =
      verbs.length === 0 &&
      /^[a-z]+(\.[a-z][\w-]*)+$/.test(t) &&
      !/\.(sql|sh|py|js|mjs|ts|json|ya?ml|txt|log|md|csv|xml|toml|conf|cfg|ini|tf|rb|go|rs|java|html?|css|zip|gz|tar|lock|env|pem|key)$/.test(
        t,
      );
    if (a.dynamic || (!IDENTIFIER.test(t) && !dotted) || /^[a-z]+:\/\//i.test(t)) {
      // A path, URL or computed operand: the path ends, unless it is the value of the option before it.
      if (args[i - 1]?.text.startsWith('-')) continue;
      break;
    }
    const lower = t.toLowerCase();
    if (HYPOTHETICAL.has(lower)) return { verbs, stop: i, hypothetical: true };
    // `docker run IMAGE CMD` runs a nested command; in `gh run delete` and `gcloud run services delete` run is a noun.
    const next = args[i + 1]?.text.toLowerCase() ?? '';
    if (RUNS_NESTED.has(lower) && !/^(services?|jobs?|domain-mappings|revisions|delete|rm|cancel|list)$/.test(next))
      return { verbs, stop: i, hypothetical: false };
    verbs.push(t);
  }
  return { verbs, stop: -1, hypothetical: false };
}

/** Does the argv scale something to zero (`--replicas=0`, `web=0` after scale, `scale count 0`, `"replicas": 0`)? */
function scalesToZero(args: Word[], verbs: string[]): boolean {
  const texts = args.map((a) => a.text);
  if (texts.some((_, i) => valueAt(texts, i, SIZE_OPTS) === '0')) return true;
  const scaling = verbs.some((v) => parts(v).some((p) => /^(scale|resize|count)$/.test(p)));
  if (scaling && args.some((a) => /^[\w-]+=0$/.test(a.text) || a.text === '0')) return true;
  return args.some(
    (a) =>
      /"?(replicas|desiredCount|desired_count|minReplicas|maxReplicas)"?\s*:\s*0\b/.test(a.text) ||
      /(^|[,\s])(desired|max)[-_]?(size|count|capacity)=0\b/i.test(a.text),
  );
}

/** The generic judgement: a destructive verb in the subcommand path, a destructive flag, or a scale to zero. */
function destructiveVerb(cmd: Argv, path: Path): string | undefined {
  if (cmd.args.some((a) => /^--dry-run(=(client|server|true))?$/.test(a.text) || a.text === '--help')) return undefined;
  if (path.hypothetical) return undefined;
  const verb = path.verbs.find((v) => parts(v).some((p) => DESTRUCTIVE.has(p)));
  if (verb) return verb;
  const compound = path.verbs.find((v, i) => {
    const p = parts(v);
    if (!COMPOUND_ONLY.has(p[0]!) && !p.slice(1).some((x) => COMPOUND_ONLY.has(x) && x !== 'close')) return false;
    return p.length > 1 || i >= 2 || (i >= 1 && !/^(stop|kill|close|release)$/.test(p[0]!));
  });
  if (compound) return compound;
  // Stopping or killing a computed list (docker kill $(docker ps -q)): everything the list names.
  if (path.verbs.some((v) => /^(stop|kill)$/i.test(v)) && cmd.args.some((a) => a.substitutions.length > 0))
    return 'every listed resource';
  // Migration tools going back to nothing or reloading the schema: every table is dropped.
  const words = path.verbs.map((v) => v.toLowerCase());
  if (
    (words.some((v) => /(^|:)(downgrade|rollback)$/.test(v)) &&
      cmd.args.some((a) => a.text === 'base' || a.text === '--all' || a.text === '0')) ||
    words.some((v) => /(^|:)(schema|structure):load$/.test(v))
  )
    return words.join(' ');
  const upto = path.stop >= 0 ? cmd.args.slice(0, path.stop) : cmd.args;
  const flag = upto.find((a) => DESTRUCTIVE_FLAGS.test(a.text));
  if (flag) return flag.text;
  // An HTTP API call with the DELETE method (gh api -X DELETE, glab api --method DELETE).
  const method = upto.findIndex((a) => a.text === '-X' || a.text === '--method');
  if (method >= 0 && upto[method + 1]?.text.toUpperCase() === 'DELETE') return 'DELETE';
  if (upto.some((a) => /^(-X|--method=?)DELETE$/i.test(a.text))) return 'DELETE';
  if (scalesToZero(upto, path.verbs)) return 'scale to zero';
  // A change batch whose action deletes (route53 change-resource-record-sets, batch APIs): "Action": "DELETE".
  if (cmd.args.some((a) => /"(Action|action|op|Op)"\s*:\s*"(DELETE|Delete|delete)"/.test(a.text)))
    return 'DELETE action';
  return undefined;
}

/** Options of resource CLIs whose value is a command run on a machine (gcloud compute ssh --command, az --scripts). */
const COMMAND_OPTS = /^--(command|cmd|scripts?|exec|remote-command)$/;
const CONTAINER_CLIS = new Set(['docker', 'podman', 'nerdctl', 'kubectl', 'oc', 'helm']);

/** Commands a resource CLI runs elsewhere: `heroku run CMD`, `fly ssh console -C CMD`, `--command CMD`, SSM commands=[...]. */
function nestedCommands(cmd: Argv, path: Path, io: Io, ctx: CheckContext): void {
  const args = cmd.args;
  const remoteShell =
    path.verbs.some((v) => /^(ssh|console)$/i.test(v)) || /^(ssh|console)$/.test(args[path.stop]?.text ?? '');
  const texts = args.map((a) => a.text);
  for (const [i, t] of texts.entries()) {
    const value = valueAt(texts, i, COMMAND_OPTS) ?? (remoteShell ? valueAt(texts, i, /^-C$/) : undefined);
    // SQL given to a managed database's --command is judged as SQL (sqlOptions), not as a shell line.
    if (value !== undefined && !SQL_TEXT.test(value)) ctx.script(value);
    for (const m of t.matchAll(/"?commands"?\s*[=:]\s*\[([^\]]*)\]/g))
      for (const c of m[1]!.matchAll(/"((?:\\.|[^"\\])*)"/g)) ctx.script(c[1]!);
  }
  // heroku run CMD, railway run CMD: the words after `run` are the command (docker run IMAGE CMD is judged elsewhere).
  if (path.stop >= 0 && /^(run|exec)$/i.test(args[path.stop]!.text) && !CONTAINER_CLIS.has(cmd.name ?? '')) {
    const rest = args.slice(path.stop + 1);
    let i = 0;
    while (i < rest.length && rest[i]!.text.startsWith('-') && rest[i]!.text !== '--')
      i += rest[i]!.text.includes('=') ? 1 : 2;
    if (rest[i]?.text === '--') i += 1;
    if (i < rest.length) ctx.argv(rest.slice(i), io);
  }
}

const SQL_TEXT = /^\s*(SELECT|INSERT|UPDATE|DELETE|DROP|TRUNCATE|ALTER|CREATE|WITH|SHOW|EXPLAIN|PRAGMA)\s/i;

/** Options of resource CLIs whose value is SQL run on a managed database (wrangler d1 execute --command, bq query). */
const SQL_OPTS = /^--?(command|query|sql|statement|execute|e|q)$/;

function sqlOptions(cmd: Argv, ctx: CheckContext): void {
  const texts = cmd.args.map((a) => a.text);
  for (const [i, t] of texts.entries()) {
    const value = valueAt(texts, i, SQL_OPTS);
    // The operand of `bq query "..."`, `gcloud sql ... --sql`: an SQL statement at the front of a word.
    const bare = !t.startsWith('-') && /^\s*(DROP|TRUNCATE|DELETE|UPDATE|ALTER)\s/i.test(t) ? t : undefined;
    for (const rule of sqlFindings(value ?? bare ?? '')) ctx.add(rule, show(cmd));
  }
}

/** Named after the project as compose names its containers and images: `<directory>-<service>` (`_` before v2). */
function composeOwned(name: string, project: string | undefined): boolean {
  const dir = project?.replace(/\/+$/, '').split('/').pop()?.toLowerCase() ?? '';
  return dir !== '' && (name.startsWith(`${dir}-`) || name.startsWith(`${dir}_`));
}

/**
 * `docker rm api-1`, `podman container rm web`: stopped containers named one by one are recreated from their image,
 * like a build output. The project's own containers and images, named after its directory as compose names them
 * (`proj-api-1`, `proj-api:dev`), may be forced away (`-f`) or untagged too. Other images and forced removals, their
 * volumes (`-v`), every one (`-a`) and a computed list (`$(docker ps -aq)`) stay resource-delete.
 */
function namedContainerRemoval(cmd: Argv, project: string | undefined): boolean {
  if (!/^(docker|podman|nerdctl)$/.test(cmd.name ?? '')) return false;
  const w = cmd.args.map((a) => a.text);
  const at = w[0] === 'container' || w[0] === 'image' ? 1 : 0;
  if (!/^(rm|remove|rmi)$/.test(w[at] ?? '')) return false;
  const images = w[0] === 'image' || w[at] === 'rmi';
  const rest = cmd.args.slice(at + 1);
  const names = rest.filter((a) => !/^(-f|--force)$/.test(a.text));
  if (names.length === 0) return false;
  if ((names.length < rest.length || images) && !names.every((a) => composeOwned(a.text, project))) return false;
  return names.every((a) => !a.dynamic && a.substitutions.length === 0 && /^\w[\w.:/@-]*$/.test(a.text));
}

export const resourceVerbs: Check = (cmd, io, ctx) => {
  const path = subcommandPath(cmd.args);
  nestedCommands(cmd, path, io, ctx);
  sqlOptions(cmd, ctx);
  const verb = namedContainerRemoval(cmd, ctx.where.project) ? undefined : destructiveVerb(cmd, path);
  if (verb) ctx.add('resource-delete', `${show(cmd)} (${verb})`);
  if (!verb && !path.hypothetical && !cmd.args.some((a) => /^--dry-run(=(client|server|true))?$/.test(a.text)))
    checkGrant(cmd, path.verbs, ctx, stdinText(io));
  if (!path.hypothetical) checkProduction(cmd, path.verbs, ctx);
  // A script named for what it destroys.
  if (
    /[/.]/.test(cmd.written) &&
    parts(
      cmd.written
        .replace(/^.*\//, '')
        .replace(/\.(sh|bash|py|rb|js|ps1)$/, '')
        .replace(/_/g, '-'),
    ).some((p) => SCRIPT_VERBS.has(p))
  )
    ctx.add('resource-delete', `${show(cmd)} (the script's name)`);
};

/** `bundle exec X`, `poetry run X`, `npm exec X`: the command that really runs. */
const RUNNERS = keyTable<readonly string[]>({
  'bundle bundler': names('exec'),
  'poetry uv pdm pipenv hatch conda': names('run'),
  npm: names('exec'),
  'pnpm yarn': names('exec dlx'),
  bun: names('x'),
});

/**
 * Project package managers: removing a dependency is ordinary; withdrawing a published package, or giving its
 * publishing rights away, is not. System package managers: removing packages changes the machine.
 */
export const packageManagerVerbs: PackageCheck = ({ path, at, words, project }, cmd, io, ctx) => {
  if (!project) return systemPackages(path, cmd, ctx);
  if (RUNNERS[cmd.name ?? '']?.includes(path[0] ?? '')) {
    // `npm exec -c 'CMD'`, `--call=CMD`, `pnpm exec --shell-mode CMD`: a shell runs the words.
    const shell = words.findIndex((w) => /^(-c|--call|--shell-mode)$/.test(w) || w.startsWith('--call='));
    const inline = words[shell]?.startsWith('--call=') ? [words[shell]!.slice(7)] : [];
    if (shell >= 0) ctx.script([...inline, ...words.slice(shell + 1)].join(' '));
    const rest = cmd.args.slice(at + 1);
    const start = rest.findIndex((a) => !a.text.startsWith('-') || a.text === '--');
    const nested = rest[start]?.text === '--' ? rest.slice(start + 1) : rest.slice(Math.max(start, 0));
    if (nested.length > 0) ctx.argv(nested, io);
    return;
  }
  // `bun exec 'CMD'`: bun's shell runs the words.
  if (cmd.name === 'bun' && path[0] === 'exec' && path.length > 1) ctx.script(path.slice(1).join(' '));
  const verbs = path.slice(0, 3);
  const verbIn = (list: string): boolean => verbs.some((v) => names(list).includes(v));
  const withdraw = verbs.some((v) => /^(unpublish|yank|deprecate)$/i.test(v));
  const registry = verbIn('owner dist-tag token access team org nuget');
  const takeAway =
    registry && (verbIn('rm remove revoke delete del') || words.some((w) => w === '--remove' || w === '-r'));
  if (withdraw || takeAway) ctx.add('package-remove', show(cmd));
  // npm token create: a new long-lived publishing credential.
  if (verbs.includes('token') && verbIn('create add new'))
    ctx.add('access-grant', `${show(cmd)} (a new publishing token)`);
  // npm owner add, npm access grant, cargo owner --add, gem owner -a: someone else may publish the package.
  // `npm dist-tag add pkg@1.0.0 latest`: every user who installs gets the version chosen.
  if (verbs[0] === 'dist-tag' && verbs[1] === 'add') ctx.add('package-publish', show(cmd));
  if (verbs[0] === 'access' && /^(public|set)$/.test(verbs[1] ?? '') && path.some((w) => /public/.test(w)))
    ctx.add('access-grant', `${show(cmd)} (the package made public)`);
  const owners = verbIn('owner owners access team org collaborator');
  if (owners && (verbIn('add grant set') || words.some((w) => w === '--add' || w === '-a')))
    ctx.add('access-grant', `${show(cmd)} (publishing rights)`);
};

/** Removing verbs of system package managers, and the one-letter options some of them remove with. */
const REMOVE = /^(remove|purge|erase|uninstall|del|delete|autoremove|rm)$/i;
const REMOVE_OPTION = keyTable({
  'nix-env': /^(-e|--uninstall)$/,
  rpm: /^(-e|--erase)$/,
  dpkg: /^(-r|-P|--remove|--purge)$/,
  pacman: /^(-R\w*|--remove)$/,
});

function systemPackages(path: string[], cmd: Argv, ctx: CheckContext): void {
  if (cmd.args.some((a) => /^(--dry-run|--simulate|-s|--just-print|--no-act|--recon|-n|--assumeno)$/.test(a.text)))
    return;
  const option = REMOVE_OPTION[cmd.name ?? ''];
  if (path.slice(0, 2).some((v) => REMOVE.test(v)) || (option && cmd.args.some((a) => option.test(a.text))))
    ctx.add('package-remove', show(cmd));
}

/** `python manage.py flush`, `php artisan migrate:fresh`, `node cli.js delete`: a script's words are a CLI's verbs. */
export const scriptSubcommands: Check = (cmd, io, ctx) => {
  const first = cmd.args.findIndex((a) => !a.text.startsWith('-'));
  const before = cmd.args.slice(0, Math.max(first, 0)).map((a) => a.text);
  // Code given inline (`python -c`, `node -e`) is not a script's CLI.
  if (first < 0 || before.some((t) => /^-(c|e|r|m|p|E|-eval|-print)$/.test(t) || /^-[a-zA-Z]*[ce]$/.test(t))) return;
  const script = cmd.args[first]!.text.replace(/^\.\//, '');
  if (!/\.(py|js|mjs|cjs|ts|rb|php|pl)$|^(manage\.py|artisan|console|bin\/console)$/.test(script)) return;
  resourceVerbs({ ...cmd, args: cmd.args.slice(first + 1) }, io, ctx);
};

/** Ad-hoc remote execution: `ansible HOSTS -m shell -a CMD`, `salt TARGET cmd.run CMD`, `pdsh -w HOSTS CMD`. */
export const remoteRun: Check = (cmd, _io, ctx) => {
  const args = cmd.args.map((a) => a.text);
  if (cmd.name === 'ansible') {
    const m = args.findIndex((a) => a === '-m' || a === '--module-name');
    const a = args.findIndex((x) => x === '-a' || x === '--args');
    if (a >= 0 && (m < 0 || /^(ansible\.builtin\.)?(shell|command|raw|script)$/.test(args[m + 1] ?? '')))
      ctx.script(args[a + 1] ?? '');
  } else if (cmd.name === 'salt' || cmd.name === 'salt-ssh') {
    const run = args.findIndex((x) => /^cmd\.(run|shell|script)$/.test(x));
    if (run >= 0 && args[run + 1] !== undefined) ctx.script(args[run + 1]!);
  } else {
    const at = args.findIndex((x) => !x.startsWith('-') && !/^-/.test(args[args.indexOf(x) - 1] ?? ''));
    if (at >= 0) ctx.script(args.slice(at).join(' '));
  }
};
