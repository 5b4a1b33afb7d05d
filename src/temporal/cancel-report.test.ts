// How `tether cancel` reads a run's history: which tool calls confirmed they stopped, and which could not.
import { describe, expect, it } from 'vitest';
import { cancelledCalls, formatCancelReport } from './cancel-report.js';

const json = (v: unknown): Uint8Array => Buffer.from(JSON.stringify(v));

describe('cancelledCalls', () => {
  it('tells stopped, finished and unconfirmed tool calls apart', () => {
    const events = [
      {
        eventId: 5,
        activityTaskScheduledEventAttributes: {
          activityType: { name: 'runTool' },
          input: { payloads: [{ data: json({ name: 'terminal', args: '{"command":"sleep 120"}' }) }] },
        },
      },
      // The eager try of an environment call is reported as the runTool call it is.
      { eventId: 6, activityTaskScheduledEventAttributes: { activityType: { name: 'runToolOnHolder' } } },
      { eventId: 7, activityTaskScheduledEventAttributes: { activityType: { name: 'runTool' } } },
      { eventId: 8, activityTaskScheduledEventAttributes: { activityType: { name: 'callModel' } } },
      { eventId: 12, activityTaskCancelRequestedEventAttributes: { scheduledEventId: 5 } },
      { eventId: 13, activityTaskCancelRequestedEventAttributes: { scheduledEventId: 6 } },
      { eventId: 14, activityTaskCancelRequestedEventAttributes: { scheduledEventId: 7 } },
      {
        eventId: 15,
        activityTaskCanceledEventAttributes: {
          scheduledEventId: 5,
          details: { payloads: [{ data: json({ result: '{"error":"Command was cancelled and killed"}' }) }] },
        },
      },
      { eventId: 16, activityTaskCompletedEventAttributes: { scheduledEventId: 6 } },
      { eventId: 17, activityTaskTimedOutEventAttributes: { scheduledEventId: 7 } },
    ];
    const calls = cancelledCalls(events as unknown as Parameters<typeof cancelledCalls>[0]); // eventId is a Long in the real type
    expect(calls).toEqual([
      {
        activity: 'runTool',
        call: 'terminal: sleep 120',
        outcome: 'stopped',
        said: '{"error":"Command was cancelled and killed"}',
      },
      { activity: 'runTool', outcome: 'finished' },
      { activity: 'runTool', outcome: 'unconfirmed' },
    ]);
    const lines = formatCancelReport('wf-1', { status: 'CANCELLED', calls });
    expect(lines[0]).toBe('wf-1 cancelled: 1 tool call stopped');
    // In words: the call and what it said, never its JSON.
    expect(lines[1]).toBe('  stopped: terminal: sleep 120 (it said: Command was cancelled and killed)');
    expect(lines[2]).toBe('  had already finished: a tool call');
    expect(lines[3]).toMatch(/NOT confirmed stopped: its worker was lost/);
  });
});
