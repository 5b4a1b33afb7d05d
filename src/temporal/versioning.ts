// Worker Versioning settings (opt-in): a worker's deployment version, its runs' versioning behaviour, making a version current. Worker-only.
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { TetherError } from '../common/errors.js';

export type VersioningBehavior = 'AUTO_UPGRADE' | 'PINNED';

/** A worker that joins a Worker Deployment: runs it starts stay with this build (PINNED) or move on (AUTO_UPGRADE). */
export interface VersioningSettings {
  deploymentName: string;
  buildId: string;
  behavior: VersioningBehavior;
}

const BEHAVIORS: Record<string, VersioningBehavior> = { 'auto-upgrade': 'AUTO_UPGRADE', pinned: 'PINNED' };

/** Temporal's rules for the parts of a version ("<deployment>.<build id>"): no dots in the name, nothing empty. */
function checkPart(value: string, what: string): string {
  const v = value.trim();
  if (v === '' || v.length > 255 || /[\s]/.test(v))
    throw new TetherError('Config.Invalid', `${what}=${value}: give a non-empty name without spaces`, false);
  if (what.includes('DEPLOYMENT') && v.includes('.'))
    throw new TetherError('Config.Invalid', `${what}=${value}: a deployment name may not contain '.'`, false);
  return v;
}

/**
 * TETHER_BUILD_ID turns versioning on (off when unset); TETHER_DEPLOYMENT_NAME (default: the task queue) and
 * TETHER_VERSIONING (auto-upgrade, the default, or pinned). `tether worker` flags override these.
 */
export function versioningSettings(
  taskQueue: string,
  env: Record<string, string | undefined> = process.env,
  flags: { buildId?: string; deployment?: string; versioning?: string } = {},
): VersioningSettings | undefined {
  const buildId = flags.buildId ?? env.TETHER_BUILD_ID;
  const deployment = flags.deployment ?? env.TETHER_DEPLOYMENT_NAME;
  const behaviorText = flags.versioning ?? env.TETHER_VERSIONING;
  if (buildId === undefined) {
    if (deployment !== undefined || behaviorText !== undefined)
      throw new TetherError(
        'Config.Invalid',
        'a deployment name or versioning behaviour (TETHER_DEPLOYMENT_NAME, TETHER_VERSIONING, --deployment, --versioning) needs a build id (TETHER_BUILD_ID or --build-id) to turn versioning on',
        false,
      );
    return undefined;
  }
  const behavior = BEHAVIORS[(behaviorText ?? 'auto-upgrade').trim().toLowerCase()];
  if (!behavior)
    throw new TetherError(
      'Config.Invalid',
      `${flags.versioning !== undefined ? '--versioning ' : 'TETHER_VERSIONING='}${behaviorText ?? ''}: use auto-upgrade or pinned`,
      false,
    );
  return {
    deploymentName: checkPart(deployment ?? defaultDeploymentName(taskQueue), 'TETHER_DEPLOYMENT_NAME'),
    buildId: checkPart(buildId, 'TETHER_BUILD_ID'),
    behavior,
  };
}

/** The Worker Deployment a task queue's workers belong to unless TETHER_DEPLOYMENT_NAME names another. */
export function defaultDeploymentName(taskQueue: string): string {
  return taskQueue.replace(/\./g, '-');
}

/**
 * The deployment options of a worker of this process (they replace the SDK's deprecated `buildId` option). The
 * worker running workflow code (`runsWorkflows`) joins the deployment when versioning is on; every other worker, and
 * every worker when it is off, names its version without joining: Temporal records which code completed each task,
 * and routes nothing by it. `buildId` is the unversioned worker's id of its workflow code (src/temporal/build-id.ts).
 */
export function deploymentOptions(
  v: VersioningSettings | undefined,
  unversioned: { taskQueue: string; buildId: string },
  runsWorkflows = true,
): { workerDeploymentOptions: WorkerDeploymentOptions } {
  const version = v
    ? { deploymentName: v.deploymentName, buildId: v.buildId }
    : { deploymentName: defaultDeploymentName(unversioned.taskQueue), buildId: unversioned.buildId };
  if (!v || !runsWorkflows) return { workerDeploymentOptions: { version, useWorkerVersioning: false } };
  return { workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: v.behavior } };
}

/**
 * Makes the version current, so new runs (and AUTO_UPGRADE runs at their next step) go to it. The server knows a
 * version only once its worker has polled, so this retries for `waitMs` while the version is not there yet.
 */
export async function setCurrentVersion(
  client: Client,
  namespace: string,
  v: VersioningSettings,
  waitMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: v.deploymentName,
        buildId: v.buildId,
        identity: 'tether worker --make-current',
      });
      return;
    } catch (err) {
      const message = (err as Error).message;
      // NOT_FOUND (5) / FAILED_PRECONDITION (9) until the worker's first poll has registered the version.
      const code = (err as { code?: number }).code;
      if ((code !== 5 && code !== 9) || Date.now() > deadline)
        throw new TetherError(
          'Config.Invalid',
          `could not make ${v.deploymentName}.${v.buildId} the current version: ${message.split('\n')[0]}`,
          false,
        );
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
