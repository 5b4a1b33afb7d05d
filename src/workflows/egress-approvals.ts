// Network approvals: a sandboxed command's connection to a host no egress policy decided waits at the worker's
// proxy while the run lists `network: HOST:PORT` as a pending approval, decided once/session/always/deny through the
// same signal, update, query and channels as a command; so does one HTTP request the proxy read that its policy does
// not allow (a write to a host allowed for reading: `network: HOST:PORT METHOD /path`, shown with what it sends);
// and the hosts the run's commands reached. Workflow-safe.
import {
  condition,
  defineSignal,
  defineUpdate,
  log,
  patched,
  proxyActivities,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import type { AgentActivities } from '../common/activity-contract.js';
import { argsDigest, type ApprovalMode, type ApprovalScope, type PendingApproval } from '../common/approval-types.js';
import {
  networkRule,
  requestRule,
  ruleCoversRequest,
  type EgressHttpRequest,
  type EgressAnswer,
  type EgressRequest,
  type NetworkReach,
  type NetworkReachReport,
} from '../common/egress-types.js';
import { EGRESS_REACHED_SIGNAL, EGRESS_UPDATE, EGRESS_WITHDRAW_SIGNAL } from '../common/workflow-messages.js';
import { applies, type ApprovalBook } from './approvals.js';

export const egressUpdate = defineUpdate<EgressAnswer, [EgressRequest]>(EGRESS_UPDATE);
export const egressReachedSignal = defineSignal<[NetworkReachReport]>(EGRESS_REACHED_SIGNAL);
export const egressWithdrawSignal = defineSignal<[{ requestId: string }]>(EGRESS_WITHDRAW_SIGNAL);

/** Runs recorded before the egress gate have none of its handlers (nothing in their histories asks for them). */
const EGRESS_PATCH = 'egress-approvals';
/** Distinct host:port entries kept in the run's list; withdrawn request ids remembered. */
const KEEP_REACHED = 100;
const KEEP_WITHDRAWN = 200;
const MAX_COMMAND_CHARS = 4_000;

const effects = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  summary: 'network approval',
});

/** Why a request cannot be handled, or undefined (it comes from a worker, but an update can be sent by anyone). */
function problemWith(r: EgressRequest | undefined): string | undefined {
  if (!r || typeof r !== 'object') return 'an egress request is an object';
  if (typeof r.requestId !== 'string' || r.requestId.length > 100) return 'requestId must be a short string';
  if (typeof r.host !== 'string' || r.host.length === 0 || r.host.length > 255) return 'host must be a host name';
  if (!Number.isInteger(r.port) || r.port < 1 || r.port > 65_535) return 'port must be from 1 to 65535';
  if (typeof r.command !== 'string') return 'command must be a string';
  if (!['manual', 'smart', 'off'].includes(r.mode)) return 'mode must be manual, smart or off';
  if (!(typeof r.timeoutSeconds === 'number' && r.timeoutSeconds > 0)) return 'timeoutSeconds must be positive';
  if (r.request !== undefined) return problemWithRequest(r.request);
  return undefined;
}

/** The same for a request's description: every field a bounded string (the approval shows them). */
function problemWithRequest(q: EgressHttpRequest): string | undefined {
  if (!q || typeof q !== 'object') return 'request must be an object';
  if (typeof q.method !== 'string' || !/^[A-Z][A-Z0-9-]{0,31}$/.test(q.method))
    return 'request.method must be a method';
  for (const [k, max] of [
    ['url', 2_100],
    ['path', 2_100],
    ['head', 2_000],
    ['why', 2_000],
  ] as const)
    if (typeof q[k] !== 'string' || q[k].length > max)
      return `request.${k} must be a string of at most ${max} characters`;
  if (q.path !== '' && (!q.path.startsWith('/') || /\s/.test(q.path))) return 'request.path must be a path';
  if (q.contentType !== undefined && (typeof q.contentType !== 'string' || q.contentType.length > 200))
    return 'request.contentType must be a short string';
  if (q.bodyBytes !== undefined && !(Number.isInteger(q.bodyBytes) && q.bodyBytes >= 0))
    return 'request.bodyBytes must be a size';
  return undefined;
}

/** What one request asks: its rule, what the person reads, and what session and always cover. */
function requestAsk(req: EgressRequest, q: EgressHttpRequest): { rule: string; text: string; scope: ApprovalScope } {
  const shownPath =
    q.path ||
    q.url
      .replace(/^[a-z]+:\/\/[^/]*/i, '')
      .split('?')[0]!
      .replace(/\s/g, '') ||
    '/';
  const rule = requestRule(req.host, req.port, q.method, shownPath);
  const size =
    q.bodyBytes === 0 || (q.bodyBytes === undefined && q.head === '')
      ? 'no body'
      : q.bodyBytes !== undefined
        ? `${q.bodyBytes} bytes`
        : 'a chunked body of unknown size';
  const text =
    `network: ${q.method} ${q.url} (${q.contentType ?? 'no content type'}, ${size})` +
    `${q.head ? `, first bytes: "${q.head}"` : ''}; ${q.why}`;
  const origin = q.url.replace(/^([a-z]+:\/\/[^/]*).*$/is, '$1');
  const scope: ApprovalScope = q.path
    ? { key: rule, covers: `${q.method} requests of this run's commands to ${origin}${q.path} and below`, always: rule }
    : {
        key: rule,
        covers: `this request only`,
        onceOnly:
          'its path is not in normal form (a . or .. segment, an encoded / or \\), so only this request can be approved',
      };
  return { rule, text, scope };
}

const hostPort = (host: string, port: number): string => networkRule(host, port).slice('network:'.length);

/** Who asked, as the approval says it: a tool call (web_extract, the browser, ...), a command, or nobody running. */
function askedBy(via: EgressRequest['via'], command: string): string {
  if (via === 'tool') return 'asked by the tool call above';
  return command ? 'asked by the command above' : 'no command was running (a background process)';
}

export class NetworkApprovals {
  /** Hosts the run's commands connected to or were refused, most recent last. */
  reached: NetworkReach[] = [];
  private withdrawn: string[] = [];
  /** Why no more questions are asked (the run is closing): waiting ones are refused with it. */
  private closed?: string;

  constructor(
    private readonly book: ApprovalBook,
    /** The run's own approvals settings, overriding the worker's. */
    private readonly run: { mode?: ApprovalMode; timeoutSeconds?: number },
    /** The tool call whose command made the connection waits for a person (true) or no longer (false). */
    private readonly waiting: (callId: string, waiting: boolean) => void = () => undefined,
  ) {
    if (!patched(EGRESS_PATCH)) return;
    setHandler(egressReachedSignal, (r) => {
      if (!r || typeof r.host !== 'string' || !Number.isInteger(r.port) || !['allowed', 'refused'].includes(r.decision))
        return log.warn('egressReached ignored: not a host, port and decision');
      this.note({ host: r.host, port: r.port, decision: r.decision, by: String(r.by).slice(0, 200) });
    });
    setHandler(egressWithdrawSignal, (w) => {
      if (typeof w?.requestId === 'string') this.withdrawn = [...this.withdrawn, w.requestId].slice(-KEEP_WITHDRAWN);
    });
    setHandler(egressUpdate, (req) => this.decide(req), {
      validator: (req) => {
        const problem = problemWith(req);
        if (problem) throw new Error(problem);
      },
    });
  }

  /**
   * The run is closing: every question still waiting is answered now (refused, with `why`), and later ones at once,
   * so no `egress` update is left running when the run ends.
   */
  close(why: string): void {
    this.closed ??= why;
  }

  private note(r: NetworkReachReport): void {
    const at = new Date().toISOString();
    const old = this.reached.find((x) => x.host === r.host && x.port === r.port);
    const rest = this.reached.filter((x) => x !== old);
    this.reached = [...rest, { ...r, count: (old?.count ?? 0) + 1, at }].slice(-KEEP_REACHED);
  }

  private answer(req: EgressRequest, a: EgressAnswer): EgressAnswer {
    this.note({ host: req.host, port: req.port, decision: a.allow ? 'allowed' : 'refused', by: a.reason });
    return a;
  }

  /**
   * The run's decision on one connection (or one request the proxy read): a session rule or mode off answer at once;
   * otherwise a person does.
   */
  private async decide(req: EgressRequest): Promise<EgressAnswer> {
    const q = req.request;
    const asked = q ? requestAsk(req, q) : undefined;
    const rule = asked?.rule ?? networkRule(req.host, req.port);
    const mode = this.run.mode ?? req.mode;
    const session = q
      ? q.path !== '' &&
        this.book.state.sessionRules.some((x) => ruleCoversRequest(x, req.host, req.port, q.method, q.path))
      : this.book.state.sessionRules.includes(rule);
    if (session) return this.answer(req, { allow: true, reason: 'approved for this run (session)', remember: true });
    if (mode === 'off') return this.answer(req, { allow: true, reason: 'approvals.mode is off', remember: true });
    // Smart approval judges commands; a host alone tells the auxiliary model too little, so a person decides.
    if (this.withdrawn.includes(req.requestId)) return { allow: false, reason: 'the connection went away' };
    if (this.closed !== undefined) return this.answer(req, { allow: false, reason: this.closed });
    const timeoutSeconds = this.run.timeoutSeconds ?? req.timeoutSeconds;
    const now = Date.now();
    const shown = hostPort(req.host, req.port);
    const command =
      req.command.length > MAX_COMMAND_CHARS ? `${req.command.slice(0, MAX_COMMAND_CHARS)}…` : req.command;
    const pending: PendingApproval = {
      approvalId: `ap-${uuid4().slice(0, 8)}`,
      callId: req.callId ?? '',
      tool: 'network',
      command,
      kind: 'network',
      host: req.host,
      port: req.port,
      findings: [
        {
          rule,
          tier: 'dangerous',
          description: `${asked ? asked.text : `network: ${shown} (${req.via}), not in terminal.local.sandbox.egress.allow`}; ${askedBy(req.via, command)}`,
        },
      ],
      // A request's approval is bound to what it showed (its method, URL, size and first bytes), not only its rule.
      argsDigest: argsDigest(asked ? `${rule}\n${command}\n${asked.text}` : `${rule}\n${command}`),
      // What each choice covers, as every channel says it: this host and port (or this method and path on it), never
      // a wider pattern.
      scope: asked?.scope ?? { key: rule, covers: `connections of this run's commands to ${shown}`, always: rule },
      askedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutSeconds * 1000).toISOString(),
    };
    this.book.addPending(pending);
    if (pending.callId) this.waiting(pending.callId, true);
    if (req.notify) this.book.notices.send(pending);
    const arrived = await condition(
      () =>
        this.book.hasDecision(pending.approvalId) ||
        this.withdrawn.includes(req.requestId) ||
        this.closed !== undefined,
      timeoutSeconds * 1000,
    );
    this.book.removePending(pending.approvalId);
    if (pending.callId) this.waiting(pending.callId, false);
    const base = {
      approvalId: pending.approvalId,
      callId: pending.callId,
      tool: 'network',
      command,
      kind: 'network' as const,
      host: req.host,
      port: req.port,
      decidedAt: new Date().toISOString(),
    };
    const d = arrived ? this.book.takeDecision(pending.approvalId) : undefined;
    if (!d) {
      const withdrawn = arrived && this.withdrawn.includes(req.requestId);
      const reason = withdrawn
        ? 'the connection went away before a decision'
        : arrived
          ? (this.closed ?? 'the run ended')
          : `no decision within ${timeoutSeconds} s`;
      this.book.record({
        ...base,
        choice: 'deny',
        // The run closing withdraws the question as much as the connection going away does.
        source: arrived ? 'withdrawn' : 'timeout',
        reason,
      });
      return this.answer(req, {
        allow: false,
        reason: arrived ? reason : `no one approved ${shown} within ${timeoutSeconds} s (a timeout counts as a denial)`,
      });
    }
    // A wider choice than the approval allows is narrowed (a request whose path is not in normal form: once).
    const choice = applies(d.choice, pending.scope);
    this.book.record({
      ...base,
      choice,
      ...(choice !== d.choice ? { asked: d.choice } : {}),
      source: 'person',
      by: d.by,
      ...(d.claimedBy === undefined ? {} : { claimedBy: d.claimedBy }),
      reason: d.reason,
    });
    if (choice === 'deny')
      return this.answer(req, { allow: false, reason: `denied by a person${d.reason ? `: ${d.reason}` : ''}` });
    if (choice === 'session' || choice === 'always')
      this.book.state.sessionRules = [...new Set([...this.book.state.sessionRules, rule])];
    // A config.yaml that cannot take the entry still leaves the session approval: the person approved this host.
    if (choice === 'always')
      await effects
        .addToAllowlist({ entries: [rule] })
        .catch((err: unknown) => log.warn('could not add the host to command_allowlist', { rule, error: String(err) }));
    return this.answer(req, {
      allow: true,
      reason: `approved by a person (${choice})`,
      remember: choice !== 'once',
    });
  }
}
