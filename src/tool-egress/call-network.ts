// One tool call's way to the network from the worker: every host it asks for is decided by the run's egress gate
// (reserved addresses, deny, allow, earlier approvals, then the run's person, who is shown the call), and only then
// resolved and connected to, by the gate. Each connection is logged like a sandboxed command's ("msg":"egress",
// via "tool"). Worker-only.
import type { Socket } from 'node:net';
import { networkRule } from '../common/egress-types.js';
import { egressGate, type Attribution, type Decision, type EgressGate } from '../environments/egress/gate.js';
import { targetText, type Target } from '../environments/egress/target.js';
import { normalPath } from '../environments/egress/access.js';
import { shown as shownText } from '../environments/egress/request-gate.js';
import { currentToolCall } from '../environments/tool-call-context.js';
import { lazyLogger, type Logger } from '../logging/logger.js';
import { countRefusal } from '../observability/metrics.js';
import type { ToolContext } from '../registry/types.js';
import { toolNetwork, type ToolNetwork } from './network-mode.js';

let log: Logger = lazyLogger;

/** The logger the tools' egress lines go to (the worker's file by default; benchmarks pass a silent one). */
export function setToolEgressLog(l: Logger): void {
  log = l;
}

/**
 * How long a tool call may wait for a person to approve a host, on top of its own work (its activity's time limit
 * grows by this much). A decision that takes longer ends the call with a timeout, and its approval is withdrawn.
 */
export const APPROVAL_WAIT_SECONDS = 900;

export type Opened = { socket: Socket; by: string } | { refused: string; status: 403 | 502 };

/** How much of a URL a request's approval shows (as the proxy shows a command's). */
const SHOWN_URL_CHARS = 2_000;

/** How an execute_code program's request is shown beneath the call it made. */
const PROGRAM_HEADING = '\n(a tool request of the execute_code program below)\n';

export class CallNetwork {
  /** Decisions this call got, per host:port: a call asks about a host once (`once` covers the rest of the call). */
  private readonly decided = new Map<string, Decision>();
  private ended = false;
  private waiting = 0;
  private readonly watchers = new Set<(asking: number) => void>();
  /** What was refused during the call, one line each (the browser reports them with its result). */
  readonly refusals: string[] = [];

  constructor(
    /** The tool's name, as the log says it. */
    readonly tool: string,
    private readonly origin: { taskId: string; workflowId?: string; callId?: string; program?: string },
    private readonly network: ToolNetwork,
    private readonly signal: AbortSignal | undefined,
    private readonly gate: EgressGate = egressGate(),
  ) {}

  /** The network of the call `ctx` serves: its run and call are read now, where the call runs (tool-call-context.ts). */
  static of(ctx: ToolContext, tool: string): CallNetwork {
    const call = currentToolCall();
    return new CallNetwork(
      tool,
      {
        taskId: ctx.taskId,
        ...(call?.workflowId ? { workflowId: call.workflowId } : {}),
        ...(call?.callId ? { callId: call.callId } : {}),
        ...(call?.program ? { program: call.program } : {}),
      },
      toolNetwork(ctx.backend),
      ctx.signal,
    );
  }

  /** Decisions waiting for a person now. */
  get asking(): number {
    return this.waiting;
  }

  /**
   * The call has returned: what its page still asks for (a browser page runs on) is decided afresh, so a `once`
   * approval does not outlive the call it was given to.
   */
  end(): void {
    this.ended = true;
    this.decided.clear();
  }

  /** Calls `fn` whenever the number of decisions waiting for a person changes; returns the way to stop. */
  watch(fn: (asking: number) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  private asked(delta: number): void {
    this.waiting += delta;
    for (const w of this.watchers) w(this.waiting);
  }

  /**
   * The decision for `t`; `shown` is what the call is doing there, as a person approving it reads it
   * (`web_extract https://…`). No name is resolved here. `gone` (a connection that closed) gives up waiting.
   */
  async decide(t: Target, shown: string, gone?: AbortSignal, unread = false): Promise<Decision> {
    if (this.network.kind === 'none')
      return this.refuse(t, { allow: false, by: 'no network', reason: this.network.why });
    const rule = networkRule(t.host, t.port);
    const key = unread ? `${rule} unread` : rule;
    const known = this.decided.get(key);
    if (known) return known;
    const who: Attribution = { ...this.who(shown), ...(unread ? { unread: true as const } : {}) };
    // Counted as waiting from the start: the gate's answer comes at once unless it asks someone.
    this.asked(1);
    let d: Decision;
    try {
      d = await this.gate.decide(t, who, 'tool', this.left(gone));
    } finally {
      this.asked(-1);
    }
    // A request that went away was not decided: a later one of the same call asks again.
    if (d.by !== 'gone' && !this.ended) this.decided.set(key, d);
    return d.allow ? d : this.refuse(t, d);
  }

  /**
   * The decision on one GET the tool itself sends (web_extract, vision_analyze) on a connection `d` allowed: every
   * one passes where the host is allowed whole; where it is allowed request by request (reads only, or some paths)
   * the GET is judged like a command's request the proxy read: an entry, command_allowlist or a session rule
   * covering its path, else the run's person, shown the request. The tool sends no body and no credential.
   */
  async decideGet(t: Target, d: Extract<Decision, { allow: true }>, url: URL, shown: string): Promise<Decision> {
    if (!d.requests || this.network.kind === 'open') return d;
    const target = `${url.pathname}${url.search}`;
    this.asked(1);
    let r: Decision;
    try {
      r = await this.gate.decideRequest(
        t,
        {
          method: 'GET',
          url: shownText(url.href, SHOWN_URL_CHARS),
          path: normalPath(target),
          access: 'read',
          head: '',
        },
        this.who(shown),
        'tool',
        this.left(undefined),
      );
    } finally {
      this.asked(-1);
    }
    return r.allow ? r : this.refuse(t, { ...r, reason: `GET ${shownText(url.href, 300)}: ${r.reason}` });
  }

  /** Who a person asked is shown: the call (and the execute_code program that made it), its run and call id. */
  private who(shown: string): Attribution {
    return {
      command: this.origin.program ? `${shown}${PROGRAM_HEADING}${this.origin.program}` : shown,
      ...(this.origin.workflowId ? { workflowId: this.origin.workflowId } : {}),
      ...(this.origin.callId ? { callId: this.origin.callId } : {}),
      ...(this.network.kind === 'open' ? { unasked: this.network.by } : {}),
    };
  }

  /** What ends a wait for a person: the call's cancellation, or `gone` (a connection that closed). */
  private left(gone: AbortSignal | undefined): AbortSignal {
    const signals = [this.signal, gone].filter((s): s is AbortSignal => s !== undefined);
    return signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
  }

  /**
   * Decides, then connects (see connect). For the browser's proxy: its traffic is not read (`unread` to the gate),
   * so a host allowed only request by request is decided as a host.
   */
  async open(t: Target, shown: string, gone?: AbortSignal): Promise<Opened> {
    const d = await this.decide(t, shown, gone, true);
    if (!d.allow) return { refused: withHost(t, d.reason), status: 403 };
    return this.connect(t, d);
  }

  /**
   * Connects to a target `decided` allowed: the gate resolves the name (only now, never before the decision) and
   * connects to an address it checked, so a name that resolves to this machine or one that rebinds is refused.
   */
  async connect(t: Target, decided: Extract<Decision, { allow: true }>): Promise<Opened> {
    const started = Date.now();
    const c = await this.gate.connect(t);
    if ('error' in c) {
      this.refuse(t, { allow: false, by: decided.by, reason: c.error });
      return { refused: withHost(t, c.error), status: c.unreachable ? 502 : 403 };
    }
    c.socket.once('close', () =>
      log.info(
        {
          ...this.line(t),
          decision: 'allowed',
          by: decided.by,
          up: c.socket.bytesWritten,
          down: c.socket.bytesRead,
          ms: Date.now() - started,
        },
        'egress',
      ),
    );
    return { socket: c.socket, by: decided.by };
  }

  private line(t: Target): Record<string, unknown> {
    const { program: _program, ...origin } = this.origin;
    return { ...origin, tool: this.tool, host: t.host, port: t.port, via: 'tool' };
  }

  private refuse(t: Target, d: Extract<Decision, { allow: false }>): Decision {
    log.info({ ...this.line(t), decision: 'refused', by: d.by, reason: d.reason }, 'egress');
    if (d.by !== 'gone') countRefusal('egress');
    this.refusals.push(withHost(t, d.reason));
    return d;
  }
}

/** A refusal's reason naming the host:port it is about (the gate's usually does already). */
function withHost(t: Target, reason: string): string {
  return reason.includes(t.host) ? reason : `${targetText(t)}: ${reason}`;
}
