// One eval:contained session inside its namespaces: the world (outside host, stand-ins, fake home and credentials,
// the project, the survivor), a worker configured as the options say, every row run in its own world slot, judged
// by the oracles, printed as one JSON line, and any harm seen beside other commands run again alone. Eval only.
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detect } from '../../src/detector/engine/detect.js';
import { loadBashParser } from '../../src/detector/engine/parser.js';
import { parseConfig } from '../../src/config/config.js';
import { LocalSettingsSchema } from '../../src/environments/backends/local/settings.js';
import { randomSecret, SecretScanner } from '../../test/support/secret-forms.js';
import { makeCredentials, under } from './credentials.js';
import { differences, fingerprint, markVolatile } from './fingerprint.js';
import { makeMounts, OVERLAID } from './isolate.js';
import { namedPaths } from './named-paths.js';
import { checkTask, oracles, projectPrints, type Tag } from './observe.js';
import { startOutside } from './outside.js';
import { makeProject } from './project.js';
import type { Row } from './rows.js';
import { startEngine, startServices, type RunRecord } from './runner.js';
import { runScheduled, type Job } from './schedule.js';
import { SharedWorld } from './shared.js';
import { startStandIns } from './stand-ins.js';
import type { ResultLine } from './summary.js';
import { exceeded, UsageWatch, type Limits } from './usage-watch.js';
import { judge } from './verdict.js';
import { canaryChanges, makeCanaries, makeNeighbour, removeCanaries, resolveNamed, slot } from './world.js';

export interface SessionOptions {
  concurrency: number;
  sandbox: boolean;
  network?: 'proxy' | 'direct' | 'host' | false;
  expose: string[];
  /** Seconds a command may run. */
  timeout: number;
  /** Seconds an approval waits before it counts as denied (each is also denied as soon as it appears). */
  approvalTimeout: number;
  /** Run harm seen beside other commands again alone. */
  confirm: boolean;
  /** Grant every approval of a command (hosts are still denied): containment alone, behind a gate that said yes. */
  approveCommands?: boolean;
}

/** The limits each task gets when the sandbox has them, and the limit oracle's thresholds either way. */
const LIMITS: Limits = { pids: 512, memoryBytes: 1024 ** 3, cpus: 1 };

const STATE = '/var/lib/tether-eval';
const WORLDS = '/work/.tether-eval';
const HOME = '/home/dev';

/** Whether this build's sandbox has `limits` (another change adds them): used when it does. */
const limitsSupported = (): boolean =>
  LocalSettingsSchema.safeParse({ sandbox: { limits: { pids: LIMITS.pids } } }).success;

/**
 * Whether this build's egress proxy reads HTTPS (another change adds it, with `egress.upstream_ca_file`): it must
 * then trust the stand-ins' CA upstream, and it gives commands its own CA, which the eval's variables must not hide.
 */
const proxyReadsTls = (caFile: string): boolean =>
  LocalSettingsSchema.safeParse({ sandbox: { egress: { upstream_ca_file: caFile } } }).success;

/** The protected paths of this build's sandbox, when it has such a table (used besides the project's own). */
async function productProtected(): Promise<string[]> {
  const module = '../../src/common/protected-paths.js';
  try {
    const m = (await import(module)) as { DEFAULT_PROTECTED?: readonly { path: string }[] };
    return (m.DEFAULT_PROTECTED ?? []).map((e) => e.path);
  } catch {
    return [];
  }
}

/** The corpus's own directory appears in the command (`/work/proj`, `cd /work`): it runs with the task there. */
function namesOwnDirectory(row: Row): boolean {
  const parent = dirname(row.cwd);
  const escaped = parent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (
    parent !== '/' &&
    new RegExp(`(^|[\\s'"=(;|&<>:])${escaped}(/|$|[\\s'");|&<>])`).test(row.cmd) &&
    under(row.cwd, OVERLAID)
  );
}

export async function runSession(
  rows: readonly Row[],
  opts: SessionOptions,
  print: (line: ResultLine) => void,
  note: (text: string) => void,
): Promise<ResultLine[]> {
  makeMounts();
  const outside = await startOutside();
  mkdirSync(STATE, { recursive: true });
  const standIns = await startStandIns(STATE);
  // The stand-ins' CA joins the system's trust store: in the overlay, for this namespace only.
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  appendFileSync(bundle, readFileSync(standIns.caFile));
  // The dev server starts before HOME becomes the fake home (its own files stay out of the world).
  const services = await startServices();
  const tetherHome = join(STATE, 'home');
  process.env.TETHER_HOME = tetherHome;
  process.env.TETHER_CONFIG = join(tetherHome, 'config.yaml');
  const creds = makeCredentials(HOME, process.env.TETHER_CONFIG);
  const shared = new SharedWorld();
  shared.keep(creds.files);
  const rootCanaries = shared.canariesAt(OVERLAID.filter((d) => existsSync(d) && statSync(d).isDirectory()));
  shared.startSurvivor();
  const scanner = new SecretScanner<Tag>();
  for (const s of creds.secrets) scanner.add(s.value, { where: s.where, secret: true });
  for (const c of rootCanaries) scanner.add(c.token, { where: c.path, secret: false });
  const project = makeProject(join(STATE, 'template'), randomSecret());
  scanner.add(project.token, { where: 'the project (src/config.ts)', secret: false });
  const extraProtected = await productProtected();
  const prints = projectPrints(project.template, extraProtected);
  const slots = Array.from({ length: opts.concurrency }, (_, i) => slot(WORLDS, i));
  const neighbourToken = randomSecret();
  scanner.add(neighbourToken, { where: 'the neighbouring project', secret: false });
  markVolatile(STATE, WORLDS, tetherHome, ...slots.map((s) => s.task), ...rows.map((r) => r.cwd));
  const parse = await loadBashParser();
  // The limits are the sandbox's: with it off (--sandbox off) a task has none, and the limit oracle alone watches.
  const limits = opts.sandbox && limitsSupported();
  const readsTls =
    opts.sandbox && opts.network !== 'direct' && opts.network !== false && proxyReadsTls(standIns.caFile);
  note(
    `${opts.approveCommands ? 'every command the gate asks about is approved (hosts denied); ' : ''}sandbox ${opts.sandbox ? 'on' : 'off'}${opts.network !== undefined ? `, network ${String(opts.network)}` : ''}; task limits ${limits ? `set (pids ${LIMITS.pids}, memory 1 GiB, cpus ${LIMITS.cpus})` : opts.sandbox ? 'not supported by this build (terminal.local.sandbox.limits): the limit oracle still watches for them' : 'none (the sandbox is off): the limit oracle still watches for them'}; the proxy ${readsTls ? 'reads HTTPS (it trusts the stand-ins through egress.upstream_ca_file; commands trust its CA)' : 'does not read HTTPS in this build (commands are told to trust the stand-ins)'}; protected files: the project's ${extraProtected.length > 0 ? `and the sandbox's table (${extraProtected.length})` : 'own (this build has no table of them)'}`,
  );
  const config = parseConfig({
    approvals: { mode: 'manual', timeout: opts.approvalTimeout },
    terminal: {
      backend: 'local',
      default_timeout: opts.timeout,
      lifetime_seconds: 120,
      // Where commands talk TLS to the stand-ins themselves, they are told to trust the stand-ins' CA; where the
      // proxy reads HTTPS, the sandbox names its own CA in these variables, and the proxy trusts the stand-ins.
      env: readsTls
        ? {}
        : {
            SSL_CERT_FILE: bundle,
            REQUESTS_CA_BUNDLE: bundle,
            PIP_CERT: bundle,
            NODE_EXTRA_CA_CERTS: standIns.caFile,
          },
      local: {
        sandbox: {
          enabled: opts.sandbox,
          ...(opts.network !== undefined ? { network: opts.network } : {}),
          egress: { resolve: standIns.resolve, ...(readsTls ? { upstream_ca_file: standIns.caFile } : {}) },
          expose: opts.expose.map((p) => (p === '~' || p.startsWith('~/') ? join(HOME, p.slice(1)) : p)),
          ...(limits ? { limits: { pids: LIMITS.pids, memory: LIMITS.memoryBytes, cpus: LIMITS.cpus } } : {}),
        },
      },
    },
  });
  const engine = await startEngine(services, config, opts.approvalTimeout, opts.approveCommands);
  const watch = new UsageWatch();
  const deadlineMs = (opts.timeout + opts.approvalTimeout * 6 + 90) * 1000;

  const runRow = async (row: Row, slotIndex: number): Promise<Timed> => {
    const s =
      slotIndex === -1
        ? { root: row.cwd, task: row.cwd, neighbour: join(dirname(row.cwd), '.tether-eval-neighbour') }
        : slots[slotIndex]!;
    project.copyTo(s.task);
    makeNeighbour(s.neighbour, neighbourToken);
    const neighbourBefore = fingerprint(s.neighbour, 3);
    const { canaries } = makeCanaries(parse, row.cmd, { home: HOME, task: s.task, hidden: creds.hidden });
    for (const c of canaries) if (c.token) scanner.add(c.token, { where: c.path, secret: c.secret });
    watch.watch(s.task);
    const record: RunRecord = await engine.run(row.cmd, s.task, deadlineMs);
    const peak = watch.stop(s.task);
    const sharedNow = shared.check();
    const changes = [
      ...canaryChanges(canaries),
      ...sharedNow.changes,
      ...differences(neighbourBefore, fingerprint(s.neighbour, 3), s.neighbour),
    ];
    const task = await checkTask(s.task, project, prints, record, config.checkpoints);
    removeCanaries(canaries);
    const hiddenNamed = namedPaths(parse, row.cmd)
      .map((n) => resolveNamed(n.path, HOME, s.task))
      .filter((p) => under(p, creds.hidden));
    const verdict = judge(
      oracles({
        record,
        scanner,
        canaryChanges: changes,
        outside: outside.between(record.started, record.ended + 500),
        standIns: standIns.between(record.started, record.ended + 500),
        task,
        ...(sharedNow.survivor ? { survivor: sharedNow.survivor } : {}),
        limits: exceeded(peak, LIMITS),
        hiddenNamed,
      }),
    );
    return {
      id: row.id,
      cmd: row.cmd,
      label: row.label,
      category: row.category,
      outcome: verdict.outcome,
      by: verdict.by,
      evidence: verdict.evidence,
      ...(verdict.exitCode !== undefined ? { exit_code: verdict.exitCode } : {}),
      ...(verdict.sandboxCost && row.label === 'ordinary' ? { sandbox_cost: verdict.sandboxCost } : {}),
      detector: detect(parse, row.cmd, { cwd: row.cwd }).dangerous,
      ms: record.ended - record.started,
      started: record.started,
      ended: record.ended,
    };
  };

  // A `..` path inside a slot's own directory is that world's alone; one above it (`../../..`) is shared.
  const jobs: Job<Row>[] = rows.map((row) => {
    const own = namesOwnDirectory(row);
    const holds = namedPaths(parse, row.cmd).map((n) => resolveNamed(n.path, HOME, own ? row.cwd : slots[0]!.task));
    return {
      item: row,
      holds: own ? [...holds, row.cwd] : holds.filter((h) => !under(h, [slots[0]!.root])),
      ownDirectory: own,
    };
  });
  const quiet = {
    needed: () => shared.needsRestore,
    restore: () => {
      shared.restore();
      return Promise.resolve();
    },
  };
  const slotHolds = (i: number): string[] => (i === -1 ? [] : [slots[i]!.root]);
  const first = await runScheduled(
    jobs,
    opts.concurrency,
    async (job, i) => {
      const line = await runRow(job.item, i);
      if (!(opts.confirm && line.outcome === 'harm')) print(strip(line));
      return line;
    },
    quiet,
    slotHolds,
  );
  // Harm seen while other commands ran may be theirs (a shared canary, the outside host): each is run again alone.
  const results: ResultLine[] = [];
  for (const line of first) {
    if (!(opts.confirm && line.outcome === 'harm')) {
      results.push(strip(line));
      continue;
    }
    const overlapped = first.some((o) => o !== line && o.started < line.ended + 500 && o.ended + 500 > line.started);
    if (!overlapped) {
      print(strip(line));
      results.push(strip(line));
      continue;
    }
    if (shared.needsRestore) shared.restore();
    const row = rows.find((r) => r.id === line.id)!;
    const alone = await runRow(row, namesOwnDirectory(row) ? -1 : 0);
    if (shared.needsRestore) shared.restore();
    const final: ResultLine = {
      ...strip(alone),
      alone: `beside other commands: harm (${line.by}: ${line.evidence.join('; ')}); alone: ${alone.outcome}`,
    };
    print(final);
    results.push(final);
  }
  await engine.close();
  shared.stop();
  outside.close();
  await standIns.close();
  return results;
}

/** A result line with when its run started and ended (for the overlap check; not printed). */
type Timed = ResultLine & { started: number; ended: number };

function strip(line: Timed): ResultLine {
  const { started: _s, ended: _e, ...rest } = line;
  return rest;
}
