// A new run's workflow id: tether-<UTC stamp>-<6 hex>, sortable by start time. Worker-only (node:crypto).
import { randomBytes } from 'node:crypto';

export function newWorkflowId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `tether-${stamp}-${randomBytes(3).toString('hex')}`;
}
