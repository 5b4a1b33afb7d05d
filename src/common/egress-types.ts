// Shapes of the egress gate that cross the workflow boundary: a connection's request for approval, the run's answer,
// and the hosts a run reached. Workflow-safe (types and pure helpers).
import type { ApprovalMode } from './approval-types.js';

/**
 * How the connection was asked for: by a sandboxed program through the proxy (an absolute-URI HTTP request, HTTPS
 * CONNECT or SOCKS5), or by a tool that runs in the worker (web_extract, the browser, vision_analyze's image URL).
 */
export type EgressVia = 'http' | 'connect' | 'socks' | 'tool';

/** What the worker's egress proxy asks a run (the `egress` update) when a host is in neither allow nor deny. */
export interface EgressRequest {
  /** Chosen by the worker: a withdrawal (the connection closed while waiting) names it. */
  requestId: string;
  host: string;
  port: number;
  via: EgressVia;
  /**
   * What the task was running when the connection came (foreground command, or its background processes); for a
   * tool (`via: tool`), the tool call: `web_extract https://…`, and the execute_code program that made it, if one did.
   */
  command: string;
  /** The tool call running that command, when one was. */
  callId?: string;
  /** The worker's approvals settings, used unless the run overrides them. */
  mode: ApprovalMode;
  timeoutSeconds: number;
  notify: boolean;
}

export interface EgressAnswer {
  allow: boolean;
  /** One line: who or what decided (a person's choice, a session approval, a timeout). */
  reason: string;
  /** The worker may let later connections of this run to the same host:port through without asking. */
  remember?: boolean;
}

/** A host:port a run's commands tried, with what the gate said the last time; shown by `tether status` and the inbox. */
export interface NetworkReach {
  host: string;
  port: number;
  decision: 'allowed' | 'refused';
  /** What decided: `egress.allow: pattern`, `egress.deny: pattern`, `person (session)`, `timeout`, ... */
  by: string;
  /** Connections counted by the run (the first of each decision reported by the worker, and every one it asked about). */
  count: number;
  at: string;
}

/** What the worker reports of a connection decided without asking the run (the `egressReached` signal). */
export type NetworkReachReport = Omit<NetworkReach, 'count' | 'at'>;

/** The allowlist and session-rule spelling of a network approval: `network:HOST:PORT` (`network:[v6]:PORT`). */
export function networkRule(host: string, port: number): string {
  return `network:${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * `HOST:PORT` of a network approval, read from its rule (the visibility memo's copy has no host and port fields);
 * undefined for any other approval.
 */
export function networkTargetOf(a: { tool: string; findings: readonly { rule: string }[] }): string | undefined {
  if (a.tool !== 'network') return undefined;
  return a.findings.find((f) => f.rule.startsWith('network:'))?.rule.slice('network:'.length);
}
