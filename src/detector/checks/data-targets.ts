// Where a data change lands, when the argv's shape says it rather than a subcommand path: production given through
// the environment (`RAILS_ENV=production`, `DATABASE_URL=...prod...`, `"$PROD_DSN"`, `dotenv -e .env.production --`)
// with a migrating or changing verb; migration tools taken back to nothing (`flyway clean`, `goose ... reset`,
// `migrate ... down -all`, `dbmate drop`, `liquibase dropAll`, `sqitch revert`); and mirror syncs to a remote, which
// delete what the source lacks (`rclone sync`, `gsutil rsync -d`, `mc mirror --remove`). Env loaders' commands are
// judged with their env file as a variable. Pure.
import type { Argv } from '../engine/argv.js';
import { literal, type Word } from '../engine/words.js';
import { show, type CheckContext } from './types.js';
import { names } from '../engine/names.js';

const PROD = /(^|[^a-z])(prod|production|prd|live)([^a-z]|$)/i;
/** Variables that choose an environment or a database. */
const TARGET_VAR =
  /(^|_)(ENV|ENVIRONMENT|STAGE|DATABASE_URL|DB_URL|DSN|DB_HOST|PGHOST|MYSQL_HOST|MONGO_URL|MONGODB_URI|ENV_FILE)$/;
/** Verbs that migrate, load or take away data. */
const CHANGE =
  /^(migrate|migration|migrations|rollback|down|up|reset|clean|push|deploy|apply|drop|redo|revert|seed|fresh|refresh|load|import|restore|truncate|purge|delete|destroy|setup|replant)$/;
const READ =
  /^(status|list|ls|show|version|info|validate|plan|diff|check|history|print|dump|generate|new|create-migration)$/;
const MIGRATORS = names(`flyway goose migrate golang-migrate dbmate sqitch liquibase atlas tern sql-migrate diesel
  alembic knex sequelize typeorm prisma`);
const LOADERS = new Set(['dotenv', 'dotenvx', 'env-cmd', 'dotenv-cli', 'with-dotenv']);

const words = (cmd: Argv): string[] => cmd.args.filter((a) => !a.text.startsWith('-')).map((a) => a.text);
const tokens = (ws: string[]): string[] => ws.flatMap((w) => w.toLowerCase().split(/[:_.-]/));

/** What names production: an assignment, a `$PROD_*` variable or a connection option's value. */
function production(cmd: Argv, assignments: { name: string; value: Word }[]): string | undefined {
  const a = assignments.find((x) => TARGET_VAR.test(x.name) && PROD.test(x.value.text));
  if (a) return `${a.name}=${a.value.text}`;
  return cmd.args.find(
    (w) =>
      /\$\{?(PROD|PRODUCTION|PRD|LIVE)_\w+|\$\{?\w+_(PROD|PRODUCTION|PRD|LIVE)(_\w+)?\b/.test(w.text) ||
      (/^(-?-?(url|database|db|dsn|uri|conn|connection)=|jdbc:|postgres(ql)?:|mysql:|mongodb(\+srv)?:)/i.test(w.text) &&
        PROD.test(w.text.replace(/^[^=]*=/, ''))),
  )?.text;
}

export function checkDataTargets(cmd: Argv, assignments: { name: string; value: Word }[], ctx: CheckContext): void {
  const name = cmd.name ?? '';
  // dotenv -e .env.production -- CMD: CMD runs with that file's variables.
  if (LOADERS.has(name)) {
    const args = cmd.args.map((a) => a.text);
    const dash = args.indexOf('--');
    const file = args.find((t, i) => /^(-e|-f|--env-file|--file)$/.test(args[i - 1] ?? '') && t !== '--');
    const rest = dash >= 0 ? cmd.args.slice(dash + 1) : [];
    if (rest.length > 0) ctx.argv([literal('env'), literal(`ENV_FILE=${file ?? '.env'}`), ...rest]);
    return;
  }
  const ws = words(cmd);
  // git push to a deploy remote (heroku, dokku, production): the push is a deploy.
  if (name === 'git' && ws[0] === 'push' && /^(heroku|dokku|piku|production|prod|live|deploy)$/i.test(ws[1] ?? ''))
    ctx.add('production-change', `${show(cmd)} (a push to the deploy remote ${ws[1]})`);
  const prod = production(cmd, assignments);
  const parts = prod === undefined ? [] : tokens(ws);
  if (prod !== undefined && parts.some((p) => CHANGE.test(p)) && !parts.some((p) => READ.test(p)))
    ctx.add('production-change', `${show(cmd)} (${prod})`);
  const flags = cmd.args.map((a) => a.text);
  if (MIGRATORS.includes(name)) {
    const all = flags.some((f) => /^--?all$/.test(f));
    const nothing = ws.find(
      (w) => /^(clean|reset|drop|drop-?all|dropAll)$/i.test(w) || (all && /^(down|rollback|revert)$/.test(w)),
    );
    if (nothing ?? (name === 'sqitch' && ws.includes('revert') && !flags.some((f) => /^--to/.test(f))))
      ctx.add('resource-delete', `${show(cmd)} (every migration undone or every object dropped)`);
  }
  // Mirror syncs to a remote delete at the destination what the source lacks.
  const remote = ws.slice(2).some((w) => /^[\w-]+:(?!\/)|^(s3|gs|az|r2|b2|https?):\/\//.test(w));
  // rclone sync deletes without being asked to: it asks when the destination names production.
  const mirror =
    (name === 'rclone' && ws[0] === 'sync' && ws.slice(2).some((w) => PROD.test(w))) ||
    (name === 'gsutil' && ws[0] === 'rsync' && flags.includes('-d')) ||
    (name === 'mc' && ws[0] === 'mirror' && flags.some((f) => /^--remove$/.test(f))) ||
    (/^(s5cmd|b2)$/.test(name) && ws[0] === 'sync' && flags.includes('--delete'));
  if (mirror && (remote || name === 'gsutil' || name === 'mc'))
    ctx.add('resource-delete', `${show(cmd)} (files missing from the source are deleted at the destination)`);
}
