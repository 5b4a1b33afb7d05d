// Checks for destructive version-control and infrastructure commands: git, docker, kubectl, terraform, cloud
// storage; and the nested commands docker exec / kubectl exec run. Pure.
import { has, parseFlags } from '../argv.js';
import type { Word } from '../words.js';
import { show, type Check } from './types.js';

const GIT_VALUE_OPTS = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env'];

const git: Check = (cmd, _io, ctx) => {
  let i = 0;
  const args = cmd.args;
  // Global options before the subcommand.
  while (i < args.length && args[i]!.text.startsWith('-')) i += GIT_VALUE_OPTS.includes(args[i]!.text) ? 2 : 1;
  const sub = args[i]?.text;
  const rest = args.slice(i + 1);
  const f = parseFlags(rest, ['-o', '--push-option', '--repo', '-e', '--exclude', '-m', '--message']);
  if (sub === 'push') {
    const forced = has(f, 'fd', '--force', '--mirror', '--delete', '--prune') || [...f.long].some((l) => l.startsWith('--force-with-lease'));
    const refspec = f.operands.slice(1).some((o) => o.text.startsWith('+') || o.text.startsWith(':'));
    if (forced || refspec) ctx.add('git-force-push', show(cmd));
  } else if (sub === 'reset' && f.long.has('--hard')) {
    ctx.add('git-reset-hard', show(cmd));
  } else if (sub === 'clean' && has(f, 'f', '--force')) {
    ctx.add('git-clean', show(cmd));
  }
};

const DOCKER_VALUE_OPTS = ['-H', '--host', '--context', '-c', '--config', '-l', '--log-level'];
const EXEC_VALUE_OPTS = ['-e', '--env', '-u', '--user', '-w', '--workdir', '--env-file', '--detach-keys', '-c', '--container', '-n', '--namespace'];

/** `docker exec [opts] C CMD...` and `kubectl exec [opts] POD -- CMD...`: the command after the target. */
function execTarget(rest: Word[]): Word[] {
  let i = 0;
  while (i < rest.length && rest[i]!.text.startsWith('-') && rest[i]!.text !== '--') i += EXEC_VALUE_OPTS.includes(rest[i]!.text) ? 2 : 1;
  let cmd = rest.slice(i + 1);
  const dashes = rest.findIndex((w) => w.text === '--');
  if (dashes >= 0) cmd = rest.slice(dashes + 1);
  return cmd;
}

const docker: Check = (cmd, _io, ctx) => {
  let i = 0;
  const args = cmd.args;
  while (i < args.length && args[i]!.text.startsWith('-')) i += DOCKER_VALUE_OPTS.includes(args[i]!.text) ? 2 : 1;
  const words = args.slice(i).map((a) => a.text);
  const [a, b] = words;
  if (a === 'exec') ctx.argv(execTarget(args.slice(i + 1)));
  const prune = b === 'prune' || (a === 'volume' && (b === 'rm' || b === 'remove')) || (a === 'compose' && words.includes('down') && words.some((w) => w === '-v' || w === '--volumes'));
  if (prune) ctx.add('docker-prune', show(cmd));
};

const kubectl: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-n', '--namespace', '--context', '--kubeconfig', '-l', '--selector', '-f', '--filename', '-c', '--container', '-o', '--output']);
  const verb = f.operands[0]?.text;
  if (verb === 'delete' || (cmd.name === 'helm' && (verb === 'uninstall' || verb === 'delete'))) ctx.add('kubectl-delete', show(cmd));
  if (cmd.name !== 'helm' && verb === 'exec') {
    const at = cmd.args.findIndex((w) => w.text === 'exec');
    ctx.argv(execTarget(cmd.args.slice(at + 1)));
  }
};

const terraform: Check = (cmd, _io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  if (words.includes('destroy') || (words.includes('apply') && words.some((w) => w === '-destroy' || w === '--destroy'))) ctx.add('terraform-destroy', show(cmd));
};

const aws: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  const s3 = w.indexOf('s3');
  if (s3 < 0) return;
  const verb = w[s3 + 1];
  if ((verb === 'rm' && w.includes('--recursive')) || (verb === 'rb' && w.includes('--force'))) ctx.add('cloud-storage-delete', show(cmd));
};

const gsutil: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text).filter((x) => x !== '-m');
  const verb = w.find((x) => !x.startsWith('-'));
  const f = parseFlags(cmd.args);
  if ((verb === 'rm' && has(f, 'rRa', '--recursive')) || verb === 'rb') ctx.add('cloud-storage-delete', show(cmd));
};

const gcloud: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  const f = parseFlags(cmd.args);
  if (w[0] === 'storage' && ((w[1] === 'rm' && has(f, 'r', '--recursive')) || (w[1] === 'buckets' && w[2] === 'delete'))) ctx.add('cloud-storage-delete', show(cmd));
};

const az: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text).join(' ');
  if (/\bstorage (blob delete-batch|container delete|account delete)\b/.test(w)) ctx.add('cloud-storage-delete', show(cmd));
};

const rclone: Check = (cmd, _io, ctx) => {
  const verb = cmd.args.find((a) => !a.text.startsWith('-'))?.text;
  if (verb === 'purge' || verb === 'delete' || verb === 'rmdirs') ctx.add('cloud-storage-delete', show(cmd));
};

const s3cmd: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  const f = parseFlags(cmd.args);
  if ((w.includes('del') || w.includes('rm') || w.includes('rb')) && has(f, 'r', '--recursive', '--force')) ctx.add('cloud-storage-delete', show(cmd));
};

const mc: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  const f = parseFlags(cmd.args);
  if ((w[0] === 'rm' && has(f, 'r', '--recursive')) || (w[0] === 'rb' && has(f, '', '--force'))) ctx.add('cloud-storage-delete', show(cmd));
};

export const infraChecks: Record<string, Check> = {
  git,
  docker,
  podman: docker,
  nerdctl: docker,
  kubectl,
  oc: kubectl,
  helm: kubectl,
  terraform,
  tofu: terraform,
  terragrunt: terraform,
  pulumi: terraform,
  cdk: terraform,
  aws,
  gsutil,
  gcloud,
  az,
  rclone,
  s3cmd,
  mc,
};
