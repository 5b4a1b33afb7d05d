// `tether worker` and `tether server`: a long-running worker process, and the Temporal dev server in the foreground. Worker-only.
import type { Command } from 'commander';
import { closeTools, createWorker, installRuntimeLogging } from '../worker.js';
import { loadConfig } from '../config/config.js';
import { registry } from '../registry/index.js';
import { DEFAULT_PORT } from '../temporal/settings.js';
import { isListening, startDevServer } from '../temporal/dev-server.js';
import { setCurrentVersion, versioningSettings } from '../temporal/versioning.js';
import { CliError } from './errors.js';
import { parseMetricsAddress } from '../config/metrics-address.js';
import { otelSettings } from '../observability/otel-env.js';
import {
  connectClient,
  DEFAULT_UI_PORT,
  devServerFiles,
  ensureTemporal,
  stopBackgroundServer,
} from './temporal-client.js';

function port(value: string, option: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65_535)
    throw new CliError(`${option} must be a TCP port number, got '${value}'`);
  return n;
}

interface WorkerFlags {
  buildId?: string;
  deployment?: string;
  versioning?: string;
  makeCurrent?: boolean;
  metrics?: string;
}

/** --metrics, else observability.metrics of config.yaml (checked when it loaded), else none. */
function metricsAddress(flag: string | undefined): string | undefined {
  if (flag === undefined) return loadConfig().observability.metrics;
  const parsed = parseMetricsAddress(flag);
  if ('problem' in parsed) throw new CliError(`--metrics: ${parsed.problem}`);
  return parsed.address;
}

export function addWorkerCommands(program: Command): void {
  program
    .command('worker')
    .description('Run a worker: discover tools, poll the task queue, run agent workflows and their tool calls')
    .option(
      '--build-id <id>',
      'join a Worker Deployment with this build id (default: TETHER_BUILD_ID; unset: unversioned)',
    )
    .option('--deployment <name>', 'Worker Deployment name (default: TETHER_DEPLOYMENT_NAME, else the task queue)')
    .option('--versioning <behavior>', 'auto-upgrade (default) or pinned: where runs started on this version go next')
    .option('--make-current', 'make this version current once it polls, so new and auto-upgrade runs come to it')
    .option(
      '--metrics <host:port>',
      'serve Prometheus metrics at http://HOST:PORT/metrics (default: observability.metrics in config.yaml; unset: none)',
    )
    .action(async (opts: WorkerFlags) => {
      const metrics = metricsAddress(opts.metrics);
      otelSettings(); // a wrong OTEL_* value is one line before anything connects
      // Policy is read here, once, before anything connects: a wrong or refused setting (a command_allowlist entry
      // that allows everything) is one line and exit code 2, and a config.yaml changed later changes nothing.
      const config = loadConfig();
      const settings = await ensureTemporal();
      const versioning = versioningSettings(settings.taskQueue, process.env, opts);
      if (opts.makeCurrent && !versioning) throw new CliError('--make-current needs --build-id (or TETHER_BUILD_ID)');
      // An unreachable server or a missing namespace is one line naming the variable, before tools load.
      const { client, close } = await connectClient(settings);
      if (!opts.makeCurrent) await close();
      try {
        installRuntimeLogging({ metrics });
      } catch (err) {
        throw new CliError(`cannot serve metrics at ${metrics ?? ''}: ${(err as Error).message.split('\n')[0]}`);
      }
      const { worker, connection } = await createWorker({ settings, versioning, config });
      const version = versioning
        ? ` · version ${versioning.deploymentName}.${versioning.buildId} (${versioning.behavior.toLowerCase().replace('_', '-')})`
        : '';
      process.stderr.write(
        `tether worker · ${settings.address} · namespace ${settings.namespace} · queue ${settings.taskQueue} · ${registry.all().length} tools${version}` +
          `${metrics ? ` · metrics http://${metrics}/metrics` : ''}. ` +
          'Ctrl-C stops it gracefully.\n',
      );
      const running = worker.run();
      try {
        if (opts.makeCurrent && versioning) {
          try {
            await setCurrentVersion(client, settings.namespace, versioning);
            process.stderr.write(`${versioning.deploymentName}.${versioning.buildId} is now the current version\n`);
          } finally {
            await close();
          }
        }
        // The Temporal runtime turns SIGINT/SIGTERM into a graceful shutdown: running activities get the grace time.
        await running;
      } catch (err) {
        worker.shutdown();
        await running.catch(() => undefined);
        throw err;
      } finally {
        await connection.close();
        await closeTools();
      }
      process.stderr.write('worker stopped\n');
    });

  const server = program
    .command('server')
    .description('Run the Temporal dev server in the foreground (tether run starts one in the background by itself)')
    .option('--port <port>', 'gRPC port', String(DEFAULT_PORT))
    .option('--ui-port <port>', 'web UI port', String(DEFAULT_UI_PORT))
    .option('--db <file>', 'SQLite file (default: TETHER_HOME/temporal/dev-server.sqlite)')
    .action(async (opts: { port: string; uiPort: string; db?: string }) => {
      const p = port(opts.port, '--port');
      const ui = port(opts.uiPort, '--ui-port');
      if (await isListening(p))
        throw new CliError(`something already listens on port ${p} (a running dev server? 'tether server stop')`);
      const dbFile = opts.db ?? devServerFiles().db;
      const dev = await startDevServer({ port: p, uiPort: ui, dbFile });
      process.stdout.write(
        `Temporal dev server on ${dev.address}\nUI: ${dev.uiAddress}\nState: ${dbFile}\nCtrl-C stops it.\n`,
      );
      let stopping = false;
      const code = await new Promise<number | null>((resolve) => {
        const stop = (): void => {
          stopping = true;
          void dev.stop();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        dev.child.once('exit', (c) => resolve(c));
      });
      if (!stopping)
        throw new CliError(`the Temporal dev server exited on its own (code ${String(code)}); see its output above`, 1);
    });

  server
    .command('stop')
    .description('Stop the dev server that tether run or tether worker started in the background')
    .action(() => {
      if (!stopBackgroundServer()) throw new CliError('no background dev server started by tether is running', 1);
      process.stdout.write('stopped\n');
    });
}
