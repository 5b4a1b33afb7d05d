// A tether worker: discovers tools, connects to Temporal, runs the agent workflow and its activities. Worker-only.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions as TemporalWorkerOptions,
  type WorkflowBundle,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { modelSettingsFromEnv, type ModelSettings } from './activities/model.js';
import { loadConfig, type TetherConfig } from './config/config.js';
import { getLogger, lazyLogger, type Logger } from './logging/logger.js';
import { discoverBuiltinTools } from './registry/discover.js';
import { hooks, registry } from './registry/index.js';
import { loadExtensions, type Extensions } from './plugins/extensions.js';
import type { TemporalSettings } from './temporal/settings.js';
import { WorkerGroup } from './temporal/worker-group.js';
import { payloadGuard } from './temporal/payload-guard.js';
import { releaseLostWorkerSticky } from './activities/sticky-release.js';
import { toolNetworkWarnings } from './tool-egress/network-mode.js';
import { setToolEgressLog } from './tool-egress/call-network.js';
import { closeEnvironments, configureEnvironments, WORKER_ID } from './environments/current.js';
import { cleanupLeftovers } from './environments/leftovers.js';
import { setCurrentConfig } from './config/current.js';
import { deploymentOptions, versioningSettings, type VersioningSettings } from './temporal/versioning.js';
import { Liveness } from './liveness/liveness.js';
import { modelCallQueue, ownQueueOf } from './common/task-queues.js';
import { prebuiltBundle, prebuiltBundleDir } from './temporal/prebuilt-bundle.js';
import { workflowBuildId } from './temporal/build-id.js';
import { preloadPlaywright } from './browser/playwright-module.js';
import { requireSearchAttributes } from './visibility/cluster-setup.js';
import { loadTracing, shutdownTracing } from './observability/tracing-loader.js';
import { HISTOGRAM_BUCKETS, installMetrics } from './observability/metrics.js';
import { approvalSinks, pendingApprovals } from './observability/approval-sink.js';
import { flushScanCaches } from './checkpoints/scan-cache.js';
import { Client } from '@temporalio/client';
import { egressGate } from './environments/egress/gate.js';
import { temporalEgressAsker } from './activities/egress-asker.js';
import { AllowlistBook } from './approval/allowlist-book.js';
import { configPath } from './config/config.js';
import { workerIdentity } from './temporal/worker-identity.js';
import { endpointLabel } from './models/openai-provider.js';
import { encodePayload, tetherDataConverter } from './payloads/data-converter.js';
import { resolveKeyFile } from './payloads/encryption-settings.js';
import { loadKeyring } from './payloads/keyring.js';

/** The workflow bundle's entry: compiled JS next to this file, or the TypeScript source in development. */
export function workflowsPath(): string {
  const js = fileURLToPath(new URL('./workflows/index.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('./workflows/index.ts', import.meta.url));
}

/** The traced bundle's workflow interceptor module, compiled or source like the workflows. */
export function workflowInterceptorsPath(): string {
  const js = fileURLToPath(new URL('./observability/workflow-interceptors.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('./observability/workflow-interceptors.ts', import.meta.url));
}

/**
 * The workflow code a worker loads: the bundle `npm run build` made when it matches the sources on disk (no webpack
 * at start, which took seconds of CPU just when a worker replaced a crashed one), else the source bundled now.
 * `traced`: the bundle with the OpenTelemetry workflow interceptors (a worker that exports traces).
 */
export async function workflowCode(
  log: Logger,
  traced = false,
): Promise<{ workflowBundle: WorkflowBundleOption; atStart: boolean; sha256?: string }> {
  const found = prebuiltBundle(workflowsPath(), prebuiltBundleDir(traced));
  if (found.bundle) return { workflowBundle: found.bundle, atStart: false, sha256: found.sha256 };
  log.info({ reason: found.reason, traced }, 'bundling the workflows at start');
  // Bundled here as Worker.create would, so the worker's build id can name the code (src/temporal/build-id.ts).
  const logger = Runtime.instance().logger;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger,
    ...(traced ? { workflowInterceptorModules: [workflowInterceptorsPath()] } : {}),
  });
  return { workflowBundle, atStart: true };
}

let runtimeInstalled = false;

/**
 * Sends the Temporal core's own log lines to tether's log file instead of the terminal; with `metrics` (HOST:PORT),
 * serves Prometheus text there: core's worker metrics and tether's own (src/observability/metrics.ts).
 */
export function installRuntimeLogging(opts: { metrics?: string } = {}): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const log = getLogger();
  const metrics = opts.metrics
    ? {
        metrics: {
          prometheus: {
            bindAddress: opts.metrics,
            countersTotalSuffix: true,
            useSecondsForDurations: true,
            histogramBucketOverrides: HISTOGRAM_BUCKETS,
          },
        },
      }
    : {};
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      const fields = { temporal: true, ...entry.meta };
      if (entry.level === 'ERROR') log.error(fields, entry.message);
      else log.warn(fields, entry.message);
    }),
    // Without `forward` the Rust core prints its own lines (ERROR temporal_sdk_core ...) straight to the terminal.
    telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } }, ...metrics },
  });
  if (opts.metrics) installMetrics(Runtime.instance().metricMeter);
}

let loading: Promise<Extensions> | undefined;

/**
 * Built-in tools, plugins and MCP servers, once per process: every worker of the process shares the registry,
 * so loading twice would register hooks twice. The first caller's configuration applies.
 */
export function loadToolsOnce(config: TetherConfig, log: Logger): Promise<Extensions> {
  loading ??= (async () => {
    const found = await discoverBuiltinTools(undefined, log);
    for (const f of found.failed) log.warn({ module: f.module }, `tool module skipped: ${f.error}`);
    return loadExtensions({ config, registry, hooks, log });
  })();
  return loading;
}

/**
 * Closes MCP connections opened by loadToolsOnce, and this process's terminal environments (containers, sandboxes);
 * sends the spans still buffered when the process exported traces.
 */
export async function closeTools(): Promise<void> {
  const current = loading;
  loading = undefined;
  if (current) await (await current).close();
  await closeEnvironments();
  await shutdownTracing();
  // A scan cache not yet written would make the next worker read those files again (src/checkpoints/scan-cache.ts).
  flushScanCaches();
}

interface WorkerOptions {
  settings: TemporalSettings;
  connection?: NativeConnection;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkflowBundle;
  model?: ModelSettings;
  config?: TetherConfig;
  log?: Logger;
  maxConcurrentActivities?: number;
  /** How long running activities may take to finish on shutdown before they are handed back. */
  shutdownGraceTime?: string;
  /** Worker Versioning (opt-in); default: from TETHER_BUILD_ID and friends, off when unset. */
  versioning?: VersioningSettings;
}

/** The task queue only this worker process polls: tool calls of tasks whose environment it holds go there. */
export function workerQueue(taskQueue: string): string {
  return ownQueueOf(taskQueue, WORKER_ID);
}

export async function createWorker(
  opts: WorkerOptions,
): Promise<{ worker: WorkerGroup; connection: NativeConnection; ownConnection: boolean }> {
  const log = opts.log ?? lazyLogger;
  const config = opts.config ?? loadConfig();
  // Loaded only when the OTEL variables ask for traces; a wrong value stops the worker here, naming the variable.
  const tracing = await loadTracing();
  // How long each start-up step took goes into the ready line: a worker replacing a crashed one should be quick.
  const steps: Record<string, number> = { process: Math.round(process.uptime() * 1000) };
  let last = Date.now();
  const step = (name: string): void => {
    steps[name] = Date.now() - last;
    last = Date.now();
  };
  await loadToolsOnce(config, log);
  step('tools');
  // A wrong terminal setting stops the worker here, naming the setting; leftovers of crashed workers go first.
  setCurrentConfig(config);
  const environments = await configureEnvironments(config.terminal, log);
  // The worker's network tools log their connections where the egress proxy logs commands' (one record).
  setToolEgressLog(log);
  for (const w of [...environments.warnings, ...toolNetworkWarnings(config)]) {
    process.stderr.write(`tether: warning: ${w}\n`);
  }
  await cleanupLeftovers(config.terminal, WORKER_ID, log);
  step('environments');
  // Runs beside the connection and worker set-up, and is done before the first call can arrive (playwright-module.ts).
  const browserModule = preloadPlaywright(config.browser.executable_path);
  // A bad key file stops the worker here, naming temporal.encryption.key_file.
  const encryption = config.temporal.encryption;
  const payloads = tetherDataConverter(
    encryption ? loadKeyring(resolveKeyFile(encryption.key_file, configPath())) : undefined,
  );
  const connection =
    opts.connection ??
    (await NativeConnection.connect({
      address: opts.settings.address,
      tls: opts.settings.tls,
      apiKey: opts.settings.apiKey,
    }));
  // Workflows set tether's search attributes: a namespace without them is one line here, not failing tasks later.
  await requireSearchAttributes(connection.operatorService, opts.settings).catch(async (err: unknown) => {
    if (!opts.connection) await connection.close(); // an open connection would keep the process alive
    throw err;
  });
  step('connection');
  payloads.bind(connection, opts.settings.namespace, opts.settings.taskQueue);
  const dataConverter = payloads.dataConverter;
  // Policy as it was when the worker started, plus the `always` decisions it applies while it runs (one book for
  // commands and hosts): a config.yaml changed meanwhile changes nothing here.
  const allowlist = new AllowlistBook(config.command_allowlist, configPath());
  // The egress proxy asks runs about hosts through this worker's own connection.
  egressGate().configure({
    asker: temporalEgressAsker(new Client({ connection, namespace: opts.settings.namespace, dataConverter }), log),
    approvals: () => ({
      mode: config.approvals.mode,
      timeoutSeconds: config.approvals.timeout,
      notify: config.approvals.webhook_url !== undefined,
    }),
    allowlisted: () => allowlist.entries().filter((e): e is string => typeof e === 'string'),
  });
  const ownQueue = workerQueue(opts.settings.taskQueue);
  const model = opts.model ?? modelSettingsFromEnv();
  const activities = createActivities({
    registry,
    hooks,
    log,
    config,
    model,
    workerQueue: ownQueue,
    allowlist,
  });
  const code = opts.workflowBundle
    ? { workflowBundle: opts.workflowBundle, atStart: false }
    : await workflowCode(log, tracing !== undefined);
  const versioning = opts.versioning ?? versioningSettings(opts.settings.taskQueue);
  // Unversioned, a short build id: every workflow task and activity start records it (src/temporal/build-id.ts).
  const unversioned = {
    taskQueue: opts.settings.taskQueue,
    buildId: workflowBuildId(code.workflowBundle, code.sha256),
  };
  // Heartbeats from a thread the event loop cannot starve, and retries that take over a busy attempt
  // (src/liveness): a live worker keeps its calls however loaded the machine is; a dead one loses them in seconds.
  const liveness = new Liveness({
    settings: opts.settings,
    stallMs: config.worker.stall_seconds * 1000,
    log,
    // The thread's heartbeats carry details sealed like every other payload when encryption is on.
    encodeDetails: (details) => encodePayload(dataConverter, details),
  });
  // Every worker runs activities the same way; one object keeps them from drifting apart.
  const activityOptions = {
    shutdownGraceTime: opts.shutdownGraceTime ?? '30 seconds',
    interceptors: {
      // Liveness first, so a call is spoken for from its first moment; tracing next, so an activity's span covers
      // what the others do.
      activity: [
        liveness.interceptor(),
        ...(tracing ? [tracing.activityInterceptors] : []),
        payloadGuard(),
        releaseLostWorkerSticky(log),
      ],
    },
    // Cancellation reaches an activity only in the answer to a heartbeat: the default throttle (80% of the
    // heartbeat timeout) held it back for up to 12 s, while the command it should stop went on.
    maxHeartbeatThrottleInterval: '1 second',
    // Temporal's default identity plus the model endpoint: `tether run` reads it from the run's history to say which
    // endpoint the worker that took the run calls (src/temporal/worker-identity.ts).
    identity: workerIdentity(endpointLabel(model.openai)),
  } satisfies Partial<TemporalWorkerOptions>;
  const toolSlots = opts.maxConcurrentActivities ?? config.worker.tool_calls;
  const shared = await Worker.create({
    connection,
    namespace: opts.settings.namespace,
    taskQueue: opts.settings.taskQueue,
    workflowBundle: code.workflowBundle,
    // Model calls of runs recorded before they had a queue of their own still come here.
    activities,
    dataConverter,
    ...activityOptions,
    maxConcurrentActivityTaskExecutions: toolSlots,
    // Approval waits reach the metrics through a sink; workflow spans leave the sandbox through the tracing one.
    sinks: { ...approvalSinks(pendingApprovals), ...tracing?.sinks },
    // A workflow task for a run whose worker died waits this long on that worker's sticky queue (default 10 s);
    // past it, any worker takes the task and replays the run's history.
    stickyQueueScheduleToStartTimeout: '1 second',
    // Only the shared queue's worker runs workflow code, so only it joins the Worker Deployment; the other queues
    // carry activities, which replay never touches.
    ...deploymentOptions(versioning, unversioned),
  });
  // Every activity the route to the holder schedules on its queue (src/workflows/environment-route.ts,
  // gate-route.ts): a gated call that reached another worker first comes here as runGatedTool.
  const own = await Worker.create({
    connection,
    namespace: opts.settings.namespace,
    taskQueue: ownQueue,
    dataConverter,
    activities: {
      runTool: activities.runTool,
      runGatedTool: activities.runGatedTool,
      assessCall: activities.assessCall,
      closeEnvironment: activities.closeEnvironment,
    },
    ...activityOptions,
    maxConcurrentActivityTaskExecutions: toolSlots,
    ...deploymentOptions(versioning, unversioned, false),
  });
  const models = await Worker.create({
    connection,
    namespace: opts.settings.namespace,
    taskQueue: modelCallQueue(opts.settings.taskQueue),
    activities: { callModel: activities.callModel },
    dataConverter,
    ...activityOptions,
    maxConcurrentActivityTaskExecutions: config.worker.model_calls,
    ...deploymentOptions(versioning, unversioned, false),
  });
  step('workers');
  const browser = await browserModule;
  step('browser');
  const workflows = opts.workflowBundle ? 'given' : code.atStart ? 'bundled at start' : 'prebuilt';
  const tools = registry.all().length;
  log.info(
    {
      taskQueue: opts.settings.taskQueue,
      ownQueue,
      tools,
      workflows,
      browser,
      buildId: versioning?.buildId ?? unversioned.buildId,
      encryption: payloads.encrypts,
      ...(tracing ? { tracing: `${tracing.settings.protocol} ${tracing.settings.endpoint}` } : {}),
      startMs: steps,
    },
    'worker ready',
  );
  const group = new WorkerGroup([shared, own, models], ownQueue, () => liveness.close());
  return { worker: group, connection, ownConnection: !opts.connection };
}
