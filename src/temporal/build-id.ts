// The build id an unversioned worker reports: short, and naming the workflow code it runs. Worker-only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkflowBundleOption } from '@temporalio/worker';

/** The full SHA-256 (hex) of a workflow bundle's code: what the build id names, and what the prebuild records. */
export function workflowCodeSha256(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/**
 * `tether-` and the first 12 hex digits of the SHA-256 of the workflow bundle: the SDK's default id names the same
 * hash, in full and after the SDK's package name (~95 bytes), and every workflow task and activity start records
 * it, three times a turn. 48 bits still tell builds apart. Used only without Worker Versioning, where the id routes
 * nothing; a versioned worker's id is the one its operator chose (src/temporal/versioning.ts).
 * `sha256` is the code's digest when already known (the prebuilt bundle's manifest records it): hashing the ~3 MB
 * bundle again cost ~20 ms of every worker start.
 */
export function workflowBuildId(bundle: WorkflowBundleOption, sha256?: string): string {
  const digest = sha256 ?? workflowCodeSha256('code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8'));
  return `tether-${digest.slice(0, 12)}`;
}
