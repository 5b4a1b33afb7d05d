import { createRequire } from 'node:module';
import type protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { EXECUTION_STATUS, jsonPayload, timestamp } from './json-payload.js';
import { leanType } from './lean-proto.js';
import { LEAN_MESSAGES, protoSubset } from './proto-subset.js';

const full = createRequire(import.meta.url)('@temporalio/proto/protos/json-module') as protobuf.Root;
const json = (v: unknown): { metadata: { encoding: Buffer }; data: Buffer } => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(v)),
});

describe("the lean read path's message subset", () => {
  it('is a small part of the API and decodes what the full schema encodes', () => {
    expect(JSON.stringify(protoSubset(full)).length).toBeLessThan(JSON.stringify(full.toJSON()).length / 5);
    const name = 'temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse';
    const message = {
      executions: [
        {
          execution: { workflowId: 'w', runId: 'r' },
          status: 1,
          startTime: { seconds: 1_700_000_000, nanos: 5_000_000 },
          memo: { fields: { tether: json({ v: 1, approvals: [] }) } },
          searchAttributes: { indexedFields: { TetherPendingApprovals: json(['a1']) } },
        },
      ],
      nextPageToken: Buffer.from('next'),
    };
    const fullType = full.lookupType(name);
    const bytes = fullType.encode(fullType.fromObject(message)).finish();
    const lean = leanType(name);
    const decoded = lean.toObject(lean.decode(bytes), { longs: Number }) as typeof message;
    const run = decoded.executions[0]!;
    expect(run.execution).toEqual({ workflowId: 'w', runId: 'r' });
    expect(EXECUTION_STATUS[run.status]).toBe('RUNNING');
    expect(timestamp(run.startTime)?.toISOString()).toBe('2023-11-14T22:13:20.005Z');
    expect(jsonPayload(run.memo.fields.tether)).toEqual({ ok: true, value: { v: 1, approvals: [] } });
    expect(jsonPayload(run.searchAttributes.indexedFields.TetherPendingApprovals)).toEqual({ ok: true, value: ['a1'] });
    expect(Buffer.from(decoded.nextPageToken).toString()).toBe('next');
    for (const m of LEAN_MESSAGES) expect(leanType(m).fullName).toBe(`.${m}`);
  });

  it('names execution statuses as the SDK does', () => {
    const values = full.lookupEnum('temporal.api.enums.v1.WorkflowExecutionStatus').values;
    for (const [protoName, n] of Object.entries(values)) {
      const sdkName = protoName.replace('WORKFLOW_EXECUTION_STATUS_', '').replace('CANCELED', 'CANCELLED');
      expect(EXECUTION_STATUS[n], protoName).toBe(sdkName);
    }
  });

  it("reads only the default converter's JSON payloads", () => {
    expect(jsonPayload({ metadata: { encoding: Buffer.from('binary/null') } })).toEqual({ ok: true, value: undefined });
    expect(jsonPayload({ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from('x') }).ok).toBe(
      false,
    );
    expect(jsonPayload({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{bad') }).ok).toBe(
      false,
    );
    expect(jsonPayload(undefined).ok).toBe(false);
  });
});
