// The egress gate: for each connection a sandboxed command asks the proxy for, decides (deny, allow, an earlier
// approval, or the run's person through an approval), then resolves the name itself and connects only to an address
// that is not this machine's; for each HTTP request the proxy read on a connection allowed request by request (a host
// allowed for reading, or under some paths), decides that request the same way. One per worker process. Worker-only.
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { connect, type Socket } from 'node:net';
import type { ApprovalMode } from '../../common/approval-types.js';
import {
  networkRule,
  requestRule,
  ruleCoversRequest,
  type EgressAnswer,
  type EgressHttpRequest,
  type EgressRequest,
  type EgressVia,
} from '../../common/egress-types.js';
import { lazyLogger, type Logger } from '../../logging/logger.js';
import { refusedAddress } from './addresses.js';
import { exactNames, firstMatch } from './patterns.js';
import { credentialFor, type Credential, type CredentialEntry, resolveCredentials } from './credentials.js';
import { EgressSchema, isPassthrough, listVerdict, requestVerdict, type EgressSettings } from './settings.js';
import { egressTrust, type Trust } from './trust.js';
import type { Access } from './access.js';
import { targetText, type Target } from './target.js';
import type { NetworkReachReport } from '../../common/egress-types.js';

/** How the gate reaches a run: implemented over Temporal by the worker (src/activities/egress-asker.ts). */
export interface EgressAsker {
  /** The run's decision (the `egress` update); rejects when the run cannot answer (ended, older code). */
  ask(workflowId: string, req: EgressRequest): Promise<EgressAnswer>;
  /** Best effort: a connection decided without asking, for the run's list of hosts. */
  reached(workflowId: string, r: NetworkReachReport): void;
  /** Best effort: every connection waiting on `requestId` has gone; the run drops the pending approval. */
  withdraw(workflowId: string, requestId: string): void;
}

/** Who made a connection: what its task was running, and in which run. */
export interface Attribution {
  workflowId?: string;
  callId?: string;
  command: string;
  /**
   * Set for a tool's request where the run's network is open (terminal.local.sandbox.network direct or host): a
   * host neither list decides is allowed without asking, and `unasked` is the reason recorded for it.
   */
  unasked?: string;
  /**
   * Set for a tool whose traffic the proxy does not read (the browser: Chromium trusts only its own store): a host
   * allowed only request by request (reads, or some paths) is not allowed by those entries, since its requests could
   * not be decided one by one; it is decided as a host, as if no entry named it.
   */
  unread?: true;
}

/**
 * `requests`: the connection is allowed only for what its entries allow (reads, or some paths), so each HTTP request
 * on it is decided with decideRequest; without it, the host is allowed whole (every request, and traffic the proxy
 * cannot read).
 */
export type Decision = { allow: true; by: string; requests?: true } | { allow: false; by: string; reason: string };

/** One HTTP request read by the proxy, as decideRequest judges it. */
export interface RequestDescription extends Omit<EgressHttpRequest, 'why' | 'path'> {
  access: Access;
  /** The path in normal form (access.ts normalPath), or undefined: then no path-limited rule covers it. */
  path: string | undefined;
}

/** The worker's approvals settings (mode, timeout, webhook), read when a run is asked. */
type ApprovalSettings = () => { mode: ApprovalMode; timeoutSeconds: number; notify: boolean };

const CONNECT_MS = 10_000;
/** Runs whose session approvals the worker remembers, and deny names' addresses: bounded, oldest dropped. */
const REMEMBERED_RUNS = 1_000;
const DENY_ADDRESSES_MS = 5 * 60_000;
/**
 * Per run and worker: approvals asked for, and hosts reported. Each is an event in the run's history, and a command
 * looping over names (of a wildcard allowed domain, or hosts nobody allowed) must not fill it: past these, hosts
 * are refused without asking, and reached hosts are no longer reported (the log still has every connection).
 */
const MAX_ASKS_PER_RUN = 200;
const MAX_REPORTS_PER_RUN = 200;

interface Asking {
  promise: Promise<Decision>;
  waiters: number;
  requestId: string;
}

export class EgressGate {
  private policy: EgressSettings = EgressSchema.parse(undefined);
  private asker: EgressAsker | undefined;
  private approvals: ApprovalSettings = () => ({ mode: 'manual', timeoutSeconds: 3600, notify: false });
  /** command_allowlist as it is now (an `always` decision adds `network:HOST:PORT`). */
  private allowlisted: () => readonly string[] = () => [];
  private log: Logger = lazyLogger;
  /** Per run: network rules approved for the session (or allowed by mode off), learnt from the run's answers. */
  private readonly remembered = new Map<string, Set<string>>();
  /** Per run: decisions already reported (one signal per host:port and decision). */
  private readonly reported = new Map<string, Set<string>>();
  private readonly asking = new Map<string, Asking>();
  private readonly asks = new Map<string, number>();
  private denyAddresses: { at: number; addresses: Set<string> } | undefined;
  /** egress.credentials with their values, resolved when the worker starts (prepareCredentials). */
  private credentials: ReturnType<typeof resolveCredentials> = [];
  /** This machine's resolver (every address of a name); replaced only by unit tests, which send nothing out. */
  private resolver = async (name: string): Promise<string[]> =>
    (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

  configure(o: {
    policy?: EgressSettings;
    resolver?: (name: string) => Promise<string[]>;
    asker?: EgressAsker;
    approvals?: ApprovalSettings;
    allowlisted?: () => readonly string[];
    log?: Logger;
  }): void {
    if (o.policy) {
      this.policy = o.policy;
      this.denyAddresses = undefined;
    }
    if (o.asker) this.asker = o.asker;
    if (o.approvals) this.approvals = o.approvals;
    if (o.allowlisted) this.allowlisted = o.allowlisted;
    if (o.log) this.log = o.log;
    if (o.resolver) this.resolver = o.resolver;
  }

  /**
   * Resolves egress.credentials from the worker's environment and files; throws a configuration error naming the
   * entry (never the value). Called when the worker starts, before any task's proxy opens.
   */
  prepareCredentials(entries: readonly CredentialEntry[], env: NodeJS.ProcessEnv = process.env): void {
    this.credentials = resolveCredentials(entries, env);
  }

  /** The credential the proxy adds to requests it allowed to `t`, sent over TLS only (see credentials.ts). */
  credentialFor(t: Pick<Target, 'host' | 'port'>): Credential | undefined {
    return credentialFor(this.credentials, t);
  }

  /** The worker's TLS trust for the proxy (its CA, leaf certificates, upstream store): made once, see trust.ts. */
  trust(): Promise<Trust> {
    return egressTrust(this.policy.upstream_ca_file);
  }

  /** Whether the proxy leaves `t`'s traffic unread (egress.passthrough). */
  passthrough(t: Pick<Target, 'host' | 'port'>): boolean {
    return isPassthrough(this.policy, t);
  }

  /** Whether a run can be asked at all (a worker connected to Temporal); tether exec and bare tests cannot. */
  get canAsk(): boolean {
    return this.asker !== undefined;
  }

  /**
   * The decision for one connection. Order: addresses never reached (before anyone is asked), deny, allow,
   * command_allowlist (`always`), this run's session approvals, then the run. A name is never resolved before it is
   * allowed: a lookup would already carry the name (and what a command encoded in it) to a DNS server.
   */
  async decide(t: Target, who: Attribution, via: EgressVia, gone: AbortSignal): Promise<Decision> {
    if (t.ip !== 0) {
      const refused = refusedAddress(t.host);
      if (refused) return { allow: false, by: 'address', reason: refused };
      const denyName = await this.deniedAddress(t.host);
      if (denyName)
        return this.report(who, t, {
          allow: false,
          by: `egress.deny: ${denyName}`,
          reason: `${t.host} is an address of ${denyName}, in terminal.local.sandbox.egress.deny`,
        });
    }
    const listed = listVerdict(this.policy, t);
    if (listed?.verdict === 'deny')
      return this.report(who, t, {
        allow: false,
        by: `egress.deny: ${listed.entry}`,
        reason: `${targetText(t)} is in terminal.local.sandbox.egress.deny (${listed.entry})`,
      });
    if (listed?.verdict === 'allow' && !(listed.requests && who.unread))
      return this.report(who, t, {
        allow: true,
        by: `egress.allow: ${listed.entry}`,
        ...(listed.requests ? { requests: true as const } : {}),
      });
    // Left: an entry allowing the host only request by request, for a tool whose requests are not read.
    const unread =
      listed?.verdict === 'allow'
        ? `${targetText(t)} is allowed only request by request, by egress.allow: ${listed.entry}, and this tool's HTTPS is not read by the proxy`
        : undefined;
    if (unread) who = { ...who, command: `${who.command}\n(${unread}: approving lets it reach the host whole)` };
    const rule = networkRule(t.host, t.port);
    if (this.allowlisted().includes(rule))
      return this.report(who, t, { allow: true, by: `command_allowlist: ${rule}` });
    if (who.workflowId && this.remembered.get(who.workflowId)?.has(rule))
      return this.report(who, t, { allow: true, by: 'approved for this run' });
    if (who.unasked) return this.report(who, t, { allow: true, by: who.unasked });
    if (!this.asker || !who.workflowId)
      return {
        allow: false,
        by: 'no run',
        reason: `${unread ?? `${targetText(t)} is not in terminal.local.sandbox.egress.allow`}, and there is no run to ask (outside a run, only allowed hosts are reached)`,
      };
    return this.ask(who.workflowId, t, who, via, gone);
  }

  /**
   * What lets one request on a connection allowed request by request through without asking, or undefined: an
   * allow entry covering its access and path, command_allowlist or this run's session approvals (the host whole, or
   * this method at this path prefix). `path` undefined (not in normal form) is covered by no path-limited rule.
   */
  requestCovered(
    t: Target,
    method: string,
    access: Access,
    path: string | undefined,
    who: Pick<Attribution, 'workflowId'>,
  ): string | undefined {
    const entry = requestVerdict(this.policy, t, access, path);
    if (entry) return `egress.allow: ${entry.entry}`;
    if (path === undefined) return undefined;
    const covering = (rules: Iterable<string> | undefined): string | undefined =>
      [...(rules ?? [])].find((x) => ruleCoversRequest(x, t.host, t.port, method, path));
    const listed = covering(this.allowlisted());
    if (listed) return `command_allowlist: ${listed}`;
    if (who.workflowId && covering(this.remembered.get(who.workflowId))) return 'approved for this run';
    return undefined;
  }

  /**
   * The decision for one HTTP request on a connection allowed request by request: what requestCovered allows,
   * otherwise the run's person, shown the request. Never shared with another request's approval: each write shows
   * its own body.
   */
  async decideRequest(
    t: Target,
    r: RequestDescription,
    who: Attribution,
    via: EgressVia,
    gone: AbortSignal,
  ): Promise<Decision> {
    const covered = this.requestCovered(t, r.method, r.access, r.path, who);
    if (covered) return { allow: true, by: covered };
    const path = r.path;
    const entries = this.policy.allow.filter((a) => firstMatch([a], t, 'web'));
    const listed = `egress.allow: ${entries.map((a) => a.entry).join(', ') || 'none'}`;
    const why =
      r.access === 'write' && !entries.some((a) => a.access === 'write')
        ? `${targetText(t)} is allowed for reading only (${listed})`
        : `no entry allows this ${r.access === 'write' ? 'write' : 'read'} to ${targetText(t)} at this path (${listed})`;
    if (!this.asker || !who.workflowId)
      return this.report(who, t, {
        allow: false,
        by: 'no run',
        reason: `${why}, and there is no run to ask (outside a run, only what egress.allow allows is sent)`,
      });
    const request: EgressHttpRequest = {
      method: r.method,
      url: r.url,
      path: path ?? '',
      ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
      ...(r.bodyBytes !== undefined ? { bodyBytes: r.bodyBytes } : {}),
      head: r.head,
      why,
    };
    const d = await this.ask(who.workflowId, t, who, via, gone, request);
    return d.allow ? { allow: true, by: d.by } : d;
  }

  /**
   * One approval per run and host:port at a time: connections asking meanwhile wait for the same decision. A
   * request's approval (`request`) is its own: never shared, since each shows what that request sends.
   */
  private async ask(
    workflowId: string,
    t: Target,
    who: Attribution,
    via: EgressVia,
    gone: AbortSignal,
    request?: EgressHttpRequest,
  ): Promise<Decision> {
    const rule = request
      ? request.path
        ? requestRule(t.host, t.port, request.method, request.path)
        : undefined
      : networkRule(t.host, t.port);
    const key = `${workflowId}\u0000${rule ?? ''}\u0000${request ? randomUUID() : ''}`;
    let a = this.asking.get(key);
    if (!a) {
      const asked = this.asks.get(workflowId) ?? 0;
      if (asked >= MAX_ASKS_PER_RUN)
        return {
          allow: false,
          by: 'too many hosts',
          reason: `${targetText(t)}: this run already asked about ${MAX_ASKS_PER_RUN} hosts or requests; more are refused without asking (a person can add them to terminal.local.sandbox.egress.allow)`,
        };
      if (!this.asks.has(workflowId) && this.asks.size >= REMEMBERED_RUNS)
        this.asks.delete(this.asks.keys().next().value!);
      this.asks.set(workflowId, asked + 1);
      const requestId = randomUUID();
      const req: EgressRequest = {
        requestId,
        host: t.host,
        port: t.port,
        via,
        // Bounded: every request is recorded in the run's history (the approval shows at most 4,000 characters).
        command: who.command.length > 4_000 ? `${who.command.slice(0, 4_000)}…` : who.command,
        ...(who.callId ? { callId: who.callId } : {}),
        ...this.approvals(),
        ...(request ? { request } : {}),
      };
      const promise = this.asker!.ask(workflowId, req).then(
        (answer): Decision => {
          if (answer.allow && answer.remember && rule) this.remember(workflowId, rule);
          return answer.allow
            ? { allow: true, by: answer.reason }
            : { allow: false, by: answer.reason, reason: answer.reason };
        },
        (err: unknown): Decision => {
          const why = (err as Error).message?.split('\n')[0] ?? String(err);
          return { allow: false, by: 'run unreachable', reason: `the run could not be asked (${why})` };
        },
      );
      a = { promise, waiters: 0, requestId };
      this.asking.set(key, a);
      void promise.finally(() => this.asking.delete(key));
    }
    const asking = a;
    asking.waiters += 1;
    return new Promise<Decision>((resolve) => {
      const left = (): void => {
        asking.waiters -= 1;
        if (asking.waiters === 0 && this.asking.get(key) === asking) this.asker!.withdraw(workflowId, asking.requestId);
        resolve({ allow: false, by: 'gone', reason: 'the connection closed while its approval was pending' });
      };
      if (gone.aborted) return left();
      gone.addEventListener('abort', left, { once: true });
      void asking.promise.then((d) => {
        if (gone.aborted) return;
        gone.removeEventListener('abort', left);
        asking.waiters -= 1;
        resolve(d);
      });
    });
  }

  private remember(workflowId: string, rule: string): void {
    let rules = this.remembered.get(workflowId);
    if (!rules) {
      if (this.remembered.size >= REMEMBERED_RUNS) this.remembered.delete(this.remembered.keys().next().value!);
      rules = new Set();
      this.remembered.set(workflowId, rules);
    }
    rules.add(rule);
  }

  /** Tells the run, once per host:port and decision, about a connection it was not asked about. */
  private report(who: Attribution, t: Target, d: Decision): Decision {
    const run = who.workflowId;
    if (!run || !this.asker) return d;
    const key = `${networkRule(t.host, t.port)} ${d.allow ? 'allowed' : 'refused'}`;
    let seen = this.reported.get(run);
    if (!seen) {
      if (this.reported.size >= REMEMBERED_RUNS) this.reported.delete(this.reported.keys().next().value!);
      seen = new Set();
      this.reported.set(run, seen);
    }
    if (!seen.has(key) && seen.size < MAX_REPORTS_PER_RUN) {
      seen.add(key);
      this.asker.reached(run, { host: t.host, port: t.port, decision: d.allow ? 'allowed' : 'refused', by: d.by });
    }
    return d;
  }

  /** The deny entry (an exact name) an IP literal belongs to: deny names are resolved, their answers kept 5 minutes. */
  private async deniedAddress(address: string): Promise<string | undefined> {
    const names = exactNames(this.policy.deny);
    if (names.length === 0) return undefined;
    if (!this.denyAddresses || Date.now() - this.denyAddresses.at > DENY_ADDRESSES_MS) {
      const byName = new Map<string, string>();
      await Promise.all(
        names.map(async (n) => {
          for (const a of await this.addressesOf(n).catch(() => [])) byName.set(a, n);
        }),
      );
      this.denyAddresses = { at: Date.now(), addresses: new Set([...byName].map(([a, n]) => `${a} ${n}`)) };
    }
    for (const entry of this.denyAddresses.addresses) {
      const [a, n] = entry.split(' ');
      if (a === address) return n;
    }
    return undefined;
  }

  /** A name's addresses: the test map's loopback stand-in, else this machine's resolver (every address). */
  private async addressesOf(name: string): Promise<string[]> {
    const mapped = this.policy.resolve.get(name);
    if (mapped) return [mapped.host];
    return this.resolver(name);
  }

  /**
   * Connects to an allowed target: the test map's stand-in as it is; otherwise every address the name resolves to
   * must be one the proxy may reach (a name resolving to loopback, link-local or this machine is refused), and the
   * socket goes to an address checked here, so a DNS answer that changes afterwards (rebinding) does not matter.
   */
  async connect(t: Target): Promise<{ socket: Socket } | { error: string; unreachable: boolean }> {
    const mapped = t.ip === 0 ? this.policy.resolve.get(t.host) : undefined;
    let addresses: string[];
    let port = t.port;
    if (mapped) {
      addresses = [mapped.host];
      port = mapped.port;
    } else if (t.ip !== 0) addresses = [t.host];
    else {
      try {
        addresses = await this.addressesOf(t.host);
      } catch (err) {
        return {
          error: `${t.host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'no address'})`,
          unreachable: true,
        };
      }
      for (const a of addresses) {
        const refused = refusedAddress(a);
        if (refused)
          return { error: `${t.host} resolves to ${refused}: never reached through the proxy`, unreachable: false };
      }
    }
    let last = 'no address';
    for (const address of addresses) {
      try {
        return { socket: await connectTo(address, port) };
      } catch (err) {
        last = `${address}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      }
    }
    return { error: `${targetText(t)} did not answer (${last})`, unreachable: true };
  }
}

function connectTo(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, allowHalfOpen: true, noDelay: true });
    const timer = setTimeout(
      () => socket.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
      CONNECT_MS,
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      // An error after this is the caller's to handle; this listener only keeps one from being unhandled.
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

let gate: EgressGate | undefined;

/** The worker's gate (its policy set by configureEnvironments, its asker by the worker once connected). */
export function egressGate(): EgressGate {
  gate ??= new EgressGate();
  return gate;
}
