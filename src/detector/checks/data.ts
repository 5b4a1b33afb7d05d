// Checks for destructive database commands: SQL given to psql, mysql, sqlite3 and friends (by argument or on
// standard input), dropdb, redis FLUSHALL and CONFIG SET dir, MongoDB drops, HTTP deletes of every index. Pure.
import { parseFlags, type Argv } from '../engine/argv.js';
import { literal } from '../engine/words.js';
import { checkWrite } from './files.js';
import { always, show, stdinText, whenArg, type Check, type CheckContext, type Io } from './types.js';
import { names } from '../engine/names.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';

const SQL_DROP =
  /\bDROP\s+(TABLE|DATABASE|SCHEMA|VIEW|MATERIALIZED\s+VIEW|INDEX|USER|ROLE|SEQUENCE|FUNCTION|PROCEDURE|TRIGGER|TYPE|EXTENSION|KEYSPACE|COLLECTION|OWNED)\b/i;

/** Rule ids for destructive statements in SQL text. Comments and string literals are ignored. */
export function sqlFindings(sql: string): string[] {
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/#[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:''|[^'])*'/g, "''")
    .replace(/"(?:""|[^"])*"/g, '"x"');
  const found = new Set<string>();
  for (const raw of text.split(';')) {
    const s = raw.trim();
    if (s === '') continue;
    if (SQL_DROP.test(s)) found.add('sql-drop');
    if (/\bALTER\s+TABLE\s+\S+\s+DROP\b/i.test(s)) found.add('sql-drop');
    if (/^(WITH\b[\s\S]*?\)\s*)?TRUNCATE\b/i.test(s) || /\bTRUNCATE\s+TABLE\b/i.test(s)) found.add('sql-truncate');
    // Superuser and admin rights for a database account: every table, and on PostgreSQL the server's files.
    if (
      /\b(ALTER|CREATE)\s+(USER|ROLE)\b[\s\S]*\b(SUPERUSER|CREATEROLE|BYPASSRLS|REPLICATION)\b/i.test(s) ||
      /\bGRANT\s+(ALL(\s+PRIVILEGES)?\s+ON\s+\*\.\*|SUPER\b|[\s\S]*\bWITH\s+(GRANT|ADMIN)\s+OPTION\b)/i.test(s) ||
      /\bGRANT\s+(pg_\w+|rds_superuser|cloudsqlsuperuser|azure_pg_admin|sysadmin|db_owner|dba)\s+TO\b/i.test(s) ||
      /\bALTER\s+SERVER\s+ROLE\s+sysadmin\s+ADD\s+MEMBER\b/i.test(s)
    )
      found.add('access-grant');
    // A condition every row meets (`WHERE true`, `WHERE 1=1`, `WHERE 1`) is no condition.
    const where =
      /\bWHERE\b/i.test(s) &&
      !/\bWHERE\s+(TRUE|1|(\d+|'\w*')\s*=\s*\2|NOT\s+FALSE)\s*(;|$|\bRETURNING\b|\bLIMIT\b|\))/i.test(s);
    // An engine that keeps nothing (BLACKHOLE) empties the table.
    if (/\bALTER\s+TABLE\b[\s\S]*\bENGINE\s*=?\s*BLACKHOLE\b/i.test(s)) found.add('sql-truncate');
    if (/\bDELETE\s+((LOW_PRIORITY|QUICK|IGNORE)\s+)*FROM\b/i.test(s) && !where) found.add('sql-delete-all');
    if (/\bUPDATE\s+((ONLY|LOW_PRIORITY|IGNORE)\s+)*\S+(\s+(AS\s+)?\w+)?\s+SET\b/i.test(s) && !where)
      found.add('sql-update-all');
  }
  return [...found];
}

/** Options of the SQL clients that take a value (connection, files, sqlite3's single-dash -init and -separator). */
const CLIENT_VALUE_OPTS = names(
  `-h --host --port -U --username -u --user -d --dbname -D --database -f --file -S -o --output --cmd -init -separator`,
);

/** The SQL a client runs: its command option, operands after the database (sqlite3), or standard input. */
function sqlClient(options: string[], operandSql?: (operands: string[]) => string[]): Check {
  return (cmd: Argv, io: Io, ctx) => {
    const f = parseFlags(cmd.args, [...options, ...CLIENT_VALUE_OPTS]);
    const texts = [...options, '--cmd'].map((o) => f.values.get(o)).filter((v): v is string => v !== undefined);
    // sqlite3's single-dash long options: -cmd SQL.
    texts.push(...cmd.args.filter((_, i) => cmd.args[i - 1]?.text === '-cmd').map((a) => a.text));
    if (operandSql) texts.push(...operandSql(f.operands.map((w) => w.text)));
    // Decoders seen through (`echo BASE64 | base64 -d | mysql`): hidden SQL is judged like written SQL.
    const input = stdinText(io) ?? ctx.knownText(io);
    if (input !== undefined) texts.push(input);
    for (const t of texts) sqlText(t, ctx, show(cmd));
    // psql -f FILE, sqlite3 -init FILE, `mysql db < FILE`: the file is the client's script.
    const fileOpts = cmd.name === 'psql' ? ['-f', '--file'] : cmd.name === 'sqlite3' ? ['-init'] : [];
    for (const file of fileOpts.map((o) => f.values.get(o)))
      if (file !== undefined && file !== '-') ctx.runsFile(literal(file), 'sql');
    if (input === undefined && io.stdinFile && io.upstream.length === 0 && !ctx.substitutionInput(io.stdinFile))
      ctx.runsFile(io.stdinFile, 'sql');
  };
}

/** Client meta-commands that pipe their output or input through a command (`\\o |cmd`, `.once |cmd`): group 1. */
const PIPED_OUTPUT =
  /(?:^|\n|;)\s*(?:\\o|\\out|\\g|\\gx|\\w|\\write|\.once|\.output|\.read|\.import|\.pipe)\s+['"]?\|\s*([^\n'"]+)/gi;

/**
 * SQL and client meta-commands: destructive statements, and what runs a shell or reads more script (psql `\\!`,
 * `\\o |cmd`, `\\copy ... program 'cmd'`, `\\i FILE`; sqlite3 `.shell`, `.system`, `.once |cmd`, `.read FILE`,
 * `.load`; mysql `system`, `\\!`, `source FILE`).
 */
export function sqlText(t: string, ctx: CheckContext, detail: string): void {
  for (const r of sqlFindings(t)) ctx.add(r, detail);
  for (const m of t.matchAll(/(?:^|\n|;)\s*(?:\\!|\.shell|\.system|system|\\system)\s+([^\n]+)/gi)) ctx.script(m[1]!);
  for (const m of t.matchAll(PIPED_OUTPUT)) ctx.script(m[1]!);
  for (const m of t.matchAll(/\b(?:\\copy\b[^\n]*|COPY\b[^;]*)\bPROGRAM\s+'((?:''|[^'])*)'/gi))
    ctx.script(m[1]!.replace(/''/g, "'"));
  for (const m of t.matchAll(/(?:^|\n|;)\s*(?:\\i|\\ir|\\include|\.read|source|\\\.)\s+['"]?([^|\s'";][^\s'";]*)/gi))
    ctx.runsFile(literal(m[1]!), 'sql');
  if (/(?:^|\n|;)\s*\.load\s/i.test(t)) ctx.add('unread-script', `${detail} (.load brings in a compiled extension)`);
}

const redis: Check = (cmd, io, ctx) => {
  // The command is the first operand (or each line of standard input); EVAL scripts can call it too.
  const f = parseFlags(cmd.args, names(`-h -p -a -n -u --user --pass -s -r -i --tls --cacert`));
  const first = f.operands[0]?.text ?? '';
  const lines = (stdinText(io) ?? '').split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '');
  const rest = f.operands.slice(1).map((w) => w.text);
  const scripts = /^eval(sha)?$/i.test(first) ? rest.join(' ') : '';
  if ([first, ...lines].some((w) => /^flush(all|db)$/i.test(w)) || /flush(all|db)/i.test(scripts))
    ctx.add('redis-flush', show(cmd));
  // `redis-cli --scan ... | xargs redis-cli del`: every key a scan finds.
  if (cmd.viaXargs && /^(del|unlink)$/i.test(first)) ctx.add('redis-flush', show(cmd));
  // CONFIG SET dir DIR: the next save writes the database file into DIR (~/.ssh, cron, web roots) as the server.
  const [a, b, c, d] = f.operands.map((w) => w.text);
  if (/^config$/i.test(a ?? '') && /^set$/i.test(b ?? '') && /^(dir|dbfilename)$/i.test(c ?? '') && d !== undefined)
    checkWrite(literal(/^dir$/i.test(c!) ? `${d.replace(/\/+$/, '')}/dump.rdb` : d), show(cmd), ctx);
};

/** A URL path that names every index (`/_all`, `/*`) or a wildcard of them (`/logs-*`). */
const EVERY_INDEX = /\/(_all|\*)($|[/?,])|\/[^/?]*\*[^/?]*($|[/?])/;

/** An HTTP DELETE of every index or a wildcard (Elasticsearch/OpenSearch `DELETE /logs-*`, `/_all`). */
export const bulkDeleteRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const url = req.urls[0];
  const path = url?.replace(/^https?:\/\/[^/]+/i, '');
  if (req.method === 'DELETE' && path !== undefined && EVERY_INDEX.test(path))
    ctx.add('sql-drop', `${show(cmd)} (every matching index)`);
};

const mongo: Check = (cmd, io, ctx) => {
  const f = parseFlags(cmd.args, ['--eval', '--host', '--port', '-u', '-p', '--file', '-f']);
  const code = [f.values.get('--eval') ?? '', stdinText(io) ?? ''].join('\n');
  if (/\.(dropDatabase|drop)\s*\(/.test(code)) ctx.add('sql-drop', show(cmd));
  if (/\.(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)/.test(code)) ctx.add('sql-delete-all', show(cmd));
};

/** pg_restore --clean, mongorestore --drop: the objects in the target are dropped before the dump is loaded. */
const restoreOverwrites: Check = (cmd, _io, ctx) => {
  if (cmd.args.some((a) => /^(--clean|--drop|-c)$/.test(a.text) || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text)))
    ctx.add('sql-drop', `${show(cmd)} (drops what is there before restoring)`);
};

judges(
  import.meta.url,
  {
    'pg_restore mongorestore': restoreOverwrites,
    'psql usql': sqlClient(['-c', '--command']),
    'mysql mariadb mycli cqlsh cockroach': sqlClient(['-e', '--execute']),
    'sqlite3 sqlite': sqlClient([], (ops) => ops.slice(1)),
    duckdb: sqlClient(['-c'], (ops) => ops.slice(1)),
    sqlcmd: sqlClient(['-Q', '-q']),
    'clickhouse-client clickhouse': sqlClient(['--query', '-q']),
    snowsql: sqlClient(['-q', '--query']),
    'redis-cli valkey-cli keydb-cli': redis,
    'mongo mongosh': mongo,
    dropdb: always('sql-drop'),
    mysqladmin: whenArg('sql-drop', /^drop$/),
  },
  { claims: true },
);
