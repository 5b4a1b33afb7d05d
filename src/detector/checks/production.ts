// Changes aimed at production: a resource or deploy CLI's changing verb (apply, deploy, up, upgrade, set, edit,
// patch, import, ...) whose target names production (a context, namespace, stack, project, environment, inventory,
// var or values file like `prod-eu`, `acme-prod`, `inventories/production`), a `--prod` deploy, and changes to a
// cluster's own kube-system namespace. The same change against dev or staging, and reads of production (get, logs,
// plan, diff, template), stay ordinary. Pure.
import { keyTable } from '../engine/names.js';
import type { Argv } from '../engine/argv.js';
import { show, valueAt, type CheckContext } from './types.js';

/** Verbs (or parts of compound verbs: update-stack, execute-change-set) that change what is running. */
const CHANGE =
  /^(apply|create|replace|patch|edit|set|label|annotate|undo|pause|resume|expose|taint|untaint|cordon|install|upgrade|rollback|import|deploy|up|update|release|promote|push|restart|sync|execute|force|unlock|mv|migrate|reset|invoke)$/;

/** A name that says production: prod, production, prd, live (not preprod, nonprod, product). */
const PROD = /(^|[^a-z0-9])(prod|production|prd|live)([^a-z0-9]|$)/i;

/** Options whose value says where a change goes. */
const TARGET =
  /^--?(context|kube-context|kubeconfig|n|namespace|s|stack|stack-name|project|env|e|environment|var-file|chdir|working-dir|terragrunt-working-dir|i|inventory|inventory-file|profile|app|a|site|target|workspace|cluster|subscription|resource-group|g|alias|f|filename|k|kustomize|values|config|region-set|org|var|c)$/;

/** Tools whose bare invocation deploys (vercel), or that change by default (ansible-playbook without --check). */
const IMPLICIT = keyTable<(words: string[]) => boolean>({
  vercel: (w) =>
    !w.some((x) =>
      /^(ls|list|logs|inspect|env|whoami|login|dev|build|pull|domains|dns|certs|secrets|project|teams)$/.test(x),
    ),
  'ansible-playbook': (w) =>
    !w.some((x) => /^(-C|--check|--syntax-check|--list-hosts|--list-tasks|--list-tags)$/.test(x)),
});

const LOCAL_RUNTIMES = /^(docker|podman|nerdctl|docker-compose|podman-compose|kind|minikube|k3d)$/;

/** Verbs that only read (gcloud run services describe): the path does not change anything. */
const READ = /^(get|list|ls|describe|show|status|logs|log|view|history|inspect|top|tail|read|whoami|info)$/;

const parts = (word: string): string[] => word.toLowerCase().split(/[-:_]/);

/** `verbs` is the subcommand path the resource check found. */
export function checkProduction(cmd: Argv, verbs: string[], ctx: CheckContext): void {
  const words = cmd.args.map((a) => a.text);
  // Terraform's state surgery: another run's lock taken away, state replaced by hand.
  if (
    /^(terraform|tofu|terragrunt)$/.test(cmd.name ?? '') &&
    (verbs[0] === 'force-unlock' || (verbs[0] === 'state' && verbs[1] === 'push'))
  )
    ctx.add('infra-state', show(cmd));
  // Containers run here; a compose file named prod is still this machine.
  if (LOCAL_RUNTIMES.test(cmd.name ?? '')) return;
  if (words.some((w) => /^--dry-run(=(client|server|true))?$|^--(check|preview|diff)$/.test(w))) return;
  const implicit = IMPLICIT[cmd.name ?? ''];
  // Scaling (to a number that is not zero: zero is resource-delete) is routine and undone the same way.
  if (words.some((w) => /^--?([\w-]*-)?(replicas|count|capacity|min-size|max-size)(=|$)/.test(w))) return;
  // A path stopped at a nested-command verb (`gcloud run deploy`): its first words.
  const leading = verbs.length > 0 ? verbs : words.filter((w) => /^[a-z][\w-]*$/.test(w)).slice(0, 2);
  const path = leading.flatMap(parts);
  const changes = (implicit?.(words) ?? false) || (path.some((p) => CHANGE.test(p)) && !path.some((p) => READ.test(p)));
  if (!changes) return;
  // Target values given to options (`--context prod-eu`, `-var-file=prod.tfvars`, `-s prod`).
  const where = words.flatMap((_, i) => valueAt(words, i, TARGET) ?? []);
  // Every stack or module changed with review switched off (`cdk deploy --all --require-approval never`).
  if (
    words.some((w) => w === '--all' || w === 'run-all') &&
    words.some(
      (w, i) =>
        /^(-auto-approve|--auto-approve|--yes|-y|--non-interactive|--force)$/.test(w) ||
        (w === '--require-approval' && words[i + 1] === 'never'),
    )
  )
    ctx.add('production-change', `${show(cmd)} (every stack, without review)`);
  const prodFlag = words.find((w) => /^--(prod|production)(=true)?$/.test(w));
  const prod = prodFlag ?? where.find((v) => PROD.test(v));
  if (prod !== undefined) ctx.add('production-change', `${show(cmd)} (${prod})`);
  else if (where.includes('kube-system')) ctx.add('production-change', `${show(cmd)} (the cluster's kube-system)`);
  // A namespace labelled to allow privileged pods: the cluster's admission guard is switched off there.
  if (words.some((w) => /^pod-security\.kubernetes\.io\/(enforce|audit|warn)=privileged$/.test(w)))
    ctx.add('security-posture', `${show(cmd)} (privileged pods allowed)`);
}
