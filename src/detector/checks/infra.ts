// Checks for destructive infrastructure commands: docker, kubectl, terraform, cloud storage; and the nested commands
// docker exec / kubectl exec run (git lives in vcs.ts; other resource CLIs in resource.ts). Pure.
import { has, parseFlags } from '../engine/argv.js';
import type { Word } from '../engine/words.js';
import { subcommandPath } from './resource.js';
import { firstOperand } from './exec.js';
import { show, when, type Check } from './types.js';
import type { Argv } from '../engine/argv.js';
import { keyTable, names } from '../engine/names.js';
import { judges } from './registry.js';
import type { ContainerCheck } from '../programs/containers/call.js';

const EXEC_VALUE_OPTS = names(`-e --env -u --user -w --workdir --env-file --detach-keys -c --container -n --namespace`);

/** `docker exec [opts] C CMD...` and `kubectl exec [opts] POD -- CMD...`: the command after the target. */
function execTarget(rest: Word[]): Word[] {
  const dashes = rest.findIndex((w) => w.text === '--');
  return rest.slice(dashes >= 0 ? dashes + 1 : firstOperand(rest, EXEC_VALUE_OPTS) + 1);
}

/** `docker exec C CMD` (also `container exec`, `compose exec SERVICE CMD`): the command gets our input. Prunes. */
export const containerExecAndPrune: ContainerCheck = ({ group, verb, rest }, cmd, io, ctx) => {
  if (verb === 'exec' && (group === undefined || group === 'container' || group === 'compose'))
    ctx.argv(execTarget(rest), io);
  const prune =
    (group !== undefined && verb === 'prune') ||
    (/^volumes?$/.test(group ?? '') && (verb === 'rm' || verb === 'remove')) ||
    (group === 'compose' && verb === 'down' && rest.some((w) => w.text === '-v' || w.text === '--volumes'));
  if (prune) ctx.add('docker-prune', show(cmd));
};

const kubectl: Check = (cmd, io, ctx) => {
  // Global options may take values the parser does not know; the verb is the first of the known verbs.
  const dashes = cmd.args.findIndex((w) => w.text === '--');
  const own = dashes < 0 ? cmd.args : cmd.args.slice(0, dashes);
  const words = own.map((w) => w.text);
  const path = subcommandPath(own);
  if (path.hypothetical || words.some((w) => /^--dry-run(=(client|server|true))?$/.test(w))) return; // can-i, explain, dry runs
  const deleting =
    cmd.name === 'helm' ? words.some((w) => /^(uninstall|delete|del|un)$/.test(w)) : words.includes('delete');
  // replace --force deletes and re-creates; apply --prune deletes what the files no longer list.
  const replaces = path.verbs.includes('replace') && words.some((w) => w === '--force' || w === '--force=true');
  if (deleting || replaces) ctx.add('kubectl-delete', show(cmd));
  if (cmd.name !== 'helm' && words.includes('exec')) {
    const at = cmd.args.findIndex((w) => w.text === 'exec');
    ctx.argv(execTarget(cmd.args.slice(at + 1)), io);
  }
};

const terraform = when(
  'terraform-destroy',
  (words, cmd) =>
    !words.includes('plan') &&
    !words.includes('preview') &&
    (words.includes('destroy') ||
      (cmd.name === 'pulumi' && words.includes('down')) ||
      words.some((w) => /^--?destroy(=true)?$/.test(w)) ||
      // apply -replace=ADDR destroys ADDR (and its data) before creating it again.
      (words.includes('apply') && words.some((w) => /^--?replace(=|$)/.test(w)))),
);

/** Each cloud storage CLI's recursive or forced removal of a bucket's contents. */
const STORAGE_DELETES = keyTable<(w: string[], cmd: Argv) => boolean>({
  aws: (w) => {
    const verb = w.includes('s3') ? w[w.indexOf('s3') + 1] : undefined;
    return (
      (verb === 'rm' && w.includes('--recursive')) ||
      (verb === 'rb' && w.includes('--force')) ||
      (verb === 'sync' && w.includes('--delete'))
    );
  },
  gsutil: (words, cmd) => {
    const verb = words.find((x) => x !== '-m' && !x.startsWith('-'));
    const recursive = has(parseFlags(cmd.args), 'rRa', '--recursive') || words.some((t) => t.includes('**'));
    return (verb === 'rm' && recursive) || verb === 'rb';
  },
  gcloud: (_w, cmd) => {
    const f = parseFlags(cmd.args, ['--project', '--account', '--configuration', '--format', '--verbosity']);
    const w = f.operands.map((a) => a.text);
    const recursive = w[1] === 'rm' && has(f, 'r', '--recursive');
    return w[0] === 'storage' && (recursive || (w[1] === 'buckets' && w[2] === 'delete'));
  },
  az: (w) => /\bstorage (blob delete-batch|container delete|account delete)\b/.test(w.join(' ')),
  rclone: (_w, cmd) => {
    const flags = parseFlags(
      cmd.args,
      names(`--config --transfers --checkers --log-file --filter --include --exclude`),
    );
    return /^(purge|delete|rmdirs)$/.test(flags.operands[0]?.text ?? '');
  },
  s3cmd: (w, cmd) =>
    (w.includes('del') || w.includes('rm') || w.includes('rb')) &&
    has(parseFlags(cmd.args), 'r', '--recursive', '--force'),
  mc: (_w, cmd) => {
    const f = parseFlags(cmd.args, ['--config-dir', '-C']);
    const w = f.operands.map((a) => a.text);
    return (w[0] === 'rm' && has(f, 'r', '--recursive')) || (w[0] === 'rb' && has(f, '', '--force'));
  },
});

judges(
  import.meta.url,
  {
    'kubectl oc helm': kubectl,
    'terraform tofu terragrunt pulumi cdk': terraform,
    ...Object.fromEntries(
      Object.entries(STORAGE_DELETES).map(([name, test]) => [name, when('cloud-storage-delete', test)]),
    ),
  },
  { backedByVerbs: true },
);
