// The build id an unversioned worker reports: short, and naming the workflow code it runs. Worker-only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkflowBundleOption } from '@temporalio/worker';

/**
 * `tether-` and the first 12 hex digits of the SHA-256 of the workflow bundle: the SDK's default id names the same
 * hash, in full and after the SDK's package name (~95 bytes), and every workflow task and activity start records
 * it, three times a turn. 48 bits still tell builds apart. Used only without Worker Versioning, where the id routes
 * nothing; a versioned worker's id is the one its operator chose (src/temporal/versioning.ts).
 */
export function workflowBuildId(bundle: WorkflowBundleOption): string {
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  return `tether-${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}
