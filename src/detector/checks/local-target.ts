// One mechanism for destructive commands aimed at something explicitly local or disposable, or only rehearsed: an
// endpoint on this machine (`--endpoint-url http://localhost:4566`, `-h 127.0.0.1`, `mongodb://localhost/...`), a
// `--local` flag, a local cluster's context (`kind-*`, `minikube`, `k3d-*`, `docker-desktop`) or manager (`kind`,
// `minikube`, `k3d`, `vagrant`), a test or development database or environment (`app_test`, `RAILS_ENV=test`,
// `--env=testing`), a database file inside the project, the project's own compose volumes, or a dry run
// (`--dry-run`, `--preview-only`, `rsync -n`). Data-destroying findings of such a command are dropped; a command with
// no explicit target (`redis-cli FLUSHALL`, `dropdb app`) keeps them, and a target that names production is never
// local. Pure.
import type { Argv } from '../engine/argv.js';
import { classifyPath, type Where } from '../engine/paths.js';
import type { Word } from '../engine/words.js';
import { names } from '../engine/names.js';
import { HTTP_CLIENTS } from '../programs/http/request.js';
import { valueAt } from './types.js';

/** Findings that only say data or a resource goes away: dropped when that data is local, disposable or rehearsed. */
export const DISPOSABLE_RULES = new Set(
  names(`
  resource-delete kubectl-delete docker-prune terraform-destroy cloud-storage-delete sql-drop sql-truncate
  sql-delete-all sql-update-all redis-flush rsync-delete data-lifecycle
`),
);

const LOOPBACK = String.raw`(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0|host\.docker\.internal)`;
/** A URL or `host:port` whose host is this machine. */
const LOCAL_URL = new RegExp(String.raw`^(?:[a-z][\w+.-]*://(?:[^@/\s]*@)?)?${LOOPBACK}(?::\d+)?(?:[/?]|$)`, 'i');
/** Options whose value is the host or endpoint a command talks to. */
const HOST_OPTS =
  /^--?(h|host|hostname|server|endpoint|endpoint-url|url|uri|addr|address|api-url|bootstrap-server|broker|db-url|database-url)$/;
/** A local cluster's context or a local cluster manager. */
const LOCAL_CONTEXT = /^(kind-[\w.-]+|minikube|k3d-[\w.-]+|docker-desktop|rancher-desktop|orbstack|colima)$/;
/** URLs of network services (not storage paths like s3:// or gs://). */
const NETWORK_URL =
  /^(https?|wss?|tcp|grpcs?|mongodb(\+srv)?|postgres(ql)?|mysql|mariadb|redis|rediss|amqps?|nats|kafka|jdbc:\w+):\/\//i;
const CONTEXT_OPTS = /^--?(context|kube-context)$/;
const LOCAL_MANAGERS = new Set(['kind', 'minikube', 'k3d', 'vagrant']);
/** Environment names of test and development. */
const TEST_ENV = /^(test|testing|development|dev|local)$/i;
const ENV_VARS = /^(RAILS_ENV|RACK_ENV|APP_ENV|NODE_ENV|MIX_ENV|DJANGO_ENV|FLASK_ENV|ENVIRONMENT|ENV|STAGE)$/;
/** A database named for tests or development (`app_test`, `shop_dev`, `test_db`). */
const TEST_DB = /^(?:[\w-]*[_-](?:test|tests|testing|dev|development)|test_[\w-]+)$/i;
const DB_OPTS = /^--?(d|db|dbname|database)$/;
/** Dry runs, previews and simulations. */
const DRY_RUN = /^(--dry-?run(=(?!none$|false$)\S*)?|--preview-only|--what-?if|-WhatIf|--noop|--simulate)$/i;
/** A file named for tests, development or scratch work. */
const DISPOSABLE_FILE = /(^|[^a-z])(test|tests|testing|dev|development|tmp|temp|scratch|fixtures?|ci|local)([^a-z]|$)/i;
const PROD = /(^|[^a-z])(prod|production|prd|live)([^a-z]|$)/i;

/** The value the analysis gives a variable set from `$(docker create ...)` / `$(docker run -d ...)` in the same line. */
export const CREATED_HERE = '<a container created in this command line>';

/** Why the command's data is explicitly local or only rehearsed, or undefined. */
export function localTarget(cmd: Argv, assignments: { name: string; value: Word }[], where: Where): string | undefined {
  // A raw HTTP call's service behind a local port is unknown (often a port-forward to a real cluster): no exception.
  if (cmd.name && HTTP_CLIENTS.includes(cmd.name)) return undefined;
  const args = cmd.args;
  const texts = args.map((a) => a.text);
  if (texts.some((t) => DRY_RUN.test(t))) return 'a dry run';
  // `id=$(docker create img) && ... && docker rm "$id"`: a container this line made and removes again.
  const containerOps = texts.filter((t, i) => i > 0 && !t.startsWith('-'));
  if (
    /^(docker|podman|nerdctl)$/.test(cmd.name ?? '') &&
    /^(rm|kill|stop|container)$/.test(texts[0] ?? '') &&
    containerOps.length > 0 &&
    containerOps.every((t) => t === CREATED_HERE || t === 'rm')
  )
    return 'a container made in this command line';
  // rsync's -n (in any bundle of short options) rehearses the transfer.
  if (
    (cmd.name === 'rsync' || texts.find((t) => !t.startsWith('-')) === 'rsync') &&
    texts.some((t) => /^-[a-zA-Z]*n[a-zA-Z]*$/.test(t))
  )
    return 'a dry run';
  if ([...texts, ...assignments.map((a) => a.value.text)].some((t) => PROD.test(t))) return undefined;
  // A host given that is not this machine makes the target remote, whatever else the command says.
  let remoteHost = false;
  let local: string | undefined;
  const target = (isLocal: boolean, why: string): void => {
    if (isLocal) local ??= why;
    else remoteHost = true;
  };
  for (let i = 0; i < args.length; i += 1) {
    const host = valueAt(texts, i, HOST_OPTS);
    if (host !== undefined) target(LOCAL_URL.test(host), `the endpoint ${host}`);
    const t = texts[i]!;
    if (!t.startsWith('-') && NETWORK_URL.test(t)) target(LOCAL_URL.test(t), `the endpoint ${t}`);
    const context = valueAt(texts, i, CONTEXT_OPTS);
    if (context !== undefined) target(LOCAL_CONTEXT.test(context), `the local cluster ${context}`);
    const env = valueAt(texts, i, /^--?(env|environment)$/);
    if (env !== undefined && TEST_ENV.test(env)) local ??= `the ${env} environment`;
    const db = valueAt(texts, i, DB_OPTS);
    if (db !== undefined && TEST_DB.test(db)) local ??= `the database ${db}`;
    if (t === '--local') local ??= '--local';
  }
  // `rake db:reset RAILS_ENV=test`: a task's environment given as an argument.
  for (const t of texts) {
    const m = /^([A-Z_]+)=(\w+)$/.exec(t);
    if (m && ENV_VARS.test(m[1]!) && TEST_ENV.test(m[2]!)) local ??= t;
  }
  for (const a of assignments) {
    if (ENV_VARS.test(a.name) && TEST_ENV.test(a.value.text)) local ??= `${a.name}=${a.value.text}`;
    if (/(DATABASE|DB)_?(URL|URI|DSN)$|_HOST$/.test(a.name))
      target(LOCAL_URL.test(a.value.text), `${a.name} on this machine`);
  }
  if (remoteHost) return undefined;
  if (local) return local;
  // MinIO's client ships an alias `local` for http://localhost:9000.
  if (cmd.name === 'mc' && args.some((a) => /^local(\/|$)/.test(a.text))) return 'the local MinIO alias';
  if (cmd.name && LOCAL_MANAGERS.has(cmd.name)) return `a local ${cmd.name} machine`;
  // SQL statements naming a test database (`DROP DATABASE IF EXISTS app_test`) with no remote host.
  if (texts.some((t) => /\b(DATABASE|SCHEMA)\s+(IF\s+EXISTS\s+)?["`]?(\w+_(test|dev)|test_\w+)\b/i.test(t)))
    return 'a test database';
  // A scratch, test or development database file inside the project (`sqlite3 tmp/dev.db`; `app.db` may be real data).
  if (cmd.name && /^(sqlite3?|duckdb|litecli)$/.test(cmd.name)) {
    const file = args.find((a) => !a.text.startsWith('-'));
    if (file && !file.dynamic && DISPOSABLE_FILE.test(file.text) && classifyPath(file, where) === 'inside')
      return `the project's ${file.text}`;
  }
  // A compose stack of tests or development (`docker compose -f docker-compose.test.yml down -v`).
  const composeFile = args.findIndex(
    (a, i) => /^(-f|--file)$/.test(a.text) && DISPOSABLE_FILE.test(texts[i + 1] ?? ''),
  );
  if (/^(docker|podman)-compose$|^(docker|podman)$/.test(cmd.name ?? '') && composeFile >= 0 && texts.includes('down'))
    return `the stack of ${texts[composeFile + 1]}`;
  // Tools whose default database is the local development one (`supabase db reset` without --linked/--db-url).
  if (cmd.name === 'supabase' && texts.includes('reset') && !texts.some((t) => /^--(linked|db-url)/.test(t)))
    return 'the local supabase database';
  return undefined;
}
