// Filters become a visibility query with every value quoted; listed rows get one status vocabulary.
import { describe, expect, it } from 'vitest';
import { quoted, rowStatus, runQuery } from './run-query.js';

describe('run query', () => {
  it('filters by status, batch, schedule and parent', () => {
    expect(runQuery({ status: 'waiting-approval', batch: 'b1', schedule: 's1', parent: 'p1' })).toBe(
      "WorkflowType = 'agentWorkflow' AND ExecutionStatus != 'ContinuedAsNew' AND ExecutionStatus = 'Running' AND " +
        "TetherStatus = 'waiting-approval' AND TetherBatch = 'b1' AND TetherSchedule = 's1' AND TetherParentRun = 'p1'",
    );
    expect(runQuery({ status: 'failed' })).toContain("ExecutionStatus = 'Failed'");
    expect(runQuery({ status: 'open' })).toContain("ExecutionStatus = 'Running'");
    expect(() => runQuery({ status: 'sleeping' })).toThrow("unknown status 'sleeping'");
  });

  it('quotes values so they cannot change the query', () => {
    expect(quoted("x' OR WorkflowType != 'y")).toBe("'x\\' OR WorkflowType != \\'y'");
    expect(quoted('a\\')).toBe("'a\\\\'");
  });

  it('maps Temporal statuses and the run attribute to one status', () => {
    expect(rowStatus('RUNNING', 'waiting-approval')).toBe('waiting-approval');
    expect(rowStatus('RUNNING', undefined)).toBe('running');
    expect(rowStatus('COMPLETED', 'limit-reached')).toBe('limit-reached');
    expect(rowStatus('COMPLETED', 'running')).toBe('completed');
    expect(rowStatus('CANCELLED', 'waiting-approval')).toBe('cancelled');
  });
});
