// Approval waits for observability: each ask and each decision goes to the worker through a sink (metrics there), and
// to listeners in the sandbox (the traced bundle's interceptor makes the wait a span). Sinks are not called on replay
// and neither records a command, so history is unchanged. Workflow-safe.
import { deprecatePatch, proxySinks, type Sinks } from '@temporalio/workflow';

/** One wait for a person, from the ask to the decision (or timeout), in workflow time. */
export interface ApprovalWait {
  approvalId: string;
  callId: string;
  tool: string;
  askedAtMs: number;
  decidedAtMs: number;
  /** once, session, always, deny (a timeout is a deny). */
  choice: string;
  /** person or timeout. */
  source: string;
  by?: string;
}

export interface ApprovalAsked {
  approvalId: string;
  tool: string;
  /** When the ask counts as denied, in ms since the epoch: the worker stops counting it as pending then. */
  expiresAtMs: number;
}

export interface ApprovalSinks extends Sinks {
  tetherApprovals: {
    asked(a: ApprovalAsked): void;
    decided(w: ApprovalWait): void;
  };
}

/**
 * Deprecated (docs/upgrades.md, "Retiring patches"): the sink calls it guarded add no command, so every history
 * replays them either way. deprecatePatch keeps histories recorded with its marker replaying; the call can go once
 * no history recorded before 2026-12-05 is left.
 */
const APPROVAL_TELEMETRY_PATCH = 'tether-approval-telemetry';

type Listener = (w: ApprovalWait) => void;
const listeners: Listener[] = [];

/** Called by the traced bundle's interceptor module, once per sandbox: its listener turns each wait into a span. */
export function onApprovalWait(listener: Listener): void {
  if (!listeners.includes(listener)) listeners.push(listener);
}

const sinks = proxySinks<ApprovalSinks>();

export function approvalAsked(a: ApprovalAsked): void {
  deprecatePatch(APPROVAL_TELEMETRY_PATCH);
  sinks.tetherApprovals.asked(a);
}

export function approvalDecided(w: ApprovalWait): void {
  deprecatePatch(APPROVAL_TELEMETRY_PATCH);
  sinks.tetherApprovals.decided(w);
  for (const l of listeners) l(w);
}
