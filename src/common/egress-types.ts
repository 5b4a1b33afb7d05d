// Shapes of the egress gate that cross the workflow boundary: a connection's (or one HTTP request's) request for
// approval, the run's answer, and the hosts a run reached. Workflow-safe (types and pure helpers).
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
  /**
   * Set when one HTTP request the proxy read is asked about (a write to a host allowed for reading, or a path no
   * entry covers), not the connection: what the person decides is this request, and session covers its method and
   * path prefix on this host:port. Absent: the connection to host:port is asked about, as before.
   */
  request?: EgressHttpRequest;
}

/** One HTTP request as the proxy read it, for an approval: what it would send, bounded and escaped. */
export interface EgressHttpRequest {
  method: string;
  /** `https://host[:port]/path?query` as the request named it (at most 2,000 characters). */
  url: string;
  /** The path without its query: what a session approval covers (itself and below, segment by segment). */
  path: string;
  contentType?: string;
  /** The body's size when known (Content-Length, or the whole body was read); absent for a longer chunked body. */
  bodyBytes?: number;
  /** Its first bytes, escaped to printable ASCII (\n, \xNN), or '' without a body. */
  head: string;
  /** Why it is asked: `registry.npmjs.org:443 is allowed for reading only (egress.allow: ...)`. */
  why: string;
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
 * The rule of a request-level approval: `network:HOST:PORT METHOD /path`. In command_allowlist and a run's session
 * rules it covers that method on that path and below (segment by segment: `/a` covers `/a/b`, not `/ab`).
 */
export function requestRule(host: string, port: number, method: string, path: string): string {
  return `${networkRule(host, port)} ${method} ${path}`;
}

/** Whether `path` is `prefix` or below it, segment by segment (`/` covers every path). */
export function pathCovered(prefix: string, path: string): boolean {
  if (prefix === '/' || prefix === '') return true;
  const p = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return path === p || path.startsWith(`${p}/`);
}

/**
 * Whether an allowlist or session rule lets this request through: the host-wide `network:HOST:PORT` covers every
 * request to it; `network:HOST:PORT METHOD /prefix` covers that method at that prefix and below.
 */
export function ruleCoversRequest(rule: string, host: string, port: number, method: string, path: string): boolean {
  const hostRule = networkRule(host, port);
  if (rule === hostRule) return true;
  if (!rule.startsWith(`${hostRule} `)) return false;
  const [m, prefix, ...rest] = rule.slice(hostRule.length + 1).split(' ');
  return (
    rest.length === 0 && m === method && prefix !== undefined && prefix.startsWith('/') && pathCovered(prefix, path)
  );
}

/**
 * `HOST:PORT` of a network approval, read from its rule (the visibility memo's copy has no host and port fields);
 * undefined for any other approval.
 */
export function networkTargetOf(a: { tool: string; findings: readonly { rule: string }[] }): string | undefined {
  if (a.tool !== 'network') return undefined;
  return a.findings.find((f) => f.rule.startsWith('network:'))?.rule.slice('network:'.length);
}
