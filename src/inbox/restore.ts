// The inbox's restore action: a run's task directory put back as one of its checkpoints holds it, under the same
// rules as `tether rollback` (refused while the run is active; a checkpoint is taken first). Reached only through
// the inbox's POST checks (session, same origin, CSRF token). Worker-only.
import type { Client } from '@temporalio/client';
import type { CheckpointSettings } from '../config/config.js';
import { isTetherError } from '../common/errors.js';
import { visibleText } from '../approval/visible-text.js';
import { rollback } from '../checkpoints/rollback.js';
import { checkRun } from '../checkpoints/run-status.js';
import { CheckpointStore } from '../checkpoints/store.js';

type Reply = { status: number; body: unknown };

/** The request as the page posts it, checked field by field; a string says what was wrong. */
function parse(text: string): { workflowId: string; id: string; path?: string } | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.workflowId !== 'string' || b.workflowId === '') return 'workflowId must be a non-empty string';
  if (typeof b.id !== 'string' || !/^[0-9a-f]{40}$/.test(b.id)) return 'id must be a checkpoint id (40 hex digits)';
  if (b.path !== undefined && (typeof b.path !== 'string' || b.path === ''))
    return 'path must be a non-empty string when given';
  return { workflowId: b.workflowId, id: b.id, ...(typeof b.path === 'string' ? { path: b.path } : {}) };
}

export async function restoreCheckpoint(client: Client, settings: CheckpointSettings, text: string): Promise<Reply> {
  const req = parse(text);
  if (typeof req === 'string') return { status: 400, body: { error: req } };
  try {
    const run = await checkRun(client, req.workflowId, false);
    if (run.refusal) return { status: 409, body: { error: run.refusal } };
    const report = await rollback(new CheckpointStore(), settings, {
      workflowId: req.workflowId,
      target: { id: req.id },
      ...(req.path ? { path: req.path } : {}),
      by: 'inbox',
      ...(run.chain ? { chain: run.chain } : {}),
    });
    return {
      status: 200,
      body: {
        undo: report.undo,
        changes: report.changes.map((c) => ({
          ...c,
          path: visibleText(c.path, { newlines: 'escape' }),
          ...(c.why ? { why: c.why } : {}),
        })),
      },
    };
  } catch (err) {
    if (isTetherError(err, 'Checkpoint.NotFound')) return { status: 404, body: { error: err.message } };
    if (isTetherError(err, 'Cli.Usage', 'Checkpoint.Failed')) return { status: 400, body: { error: err.message } };
    throw err;
  }
}
