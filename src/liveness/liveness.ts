// Liveness that tells busy from dead: every activity with a heartbeat timeout is registered with the heartbeat thread
// as it starts, a retry that finds its earlier attempt still running on this worker takes it over, and an attempt the
// server already gave up before it began runs nothing. Worker-only.
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, defaultPayloadConverter, type ActivityCancellationDetails } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { hostname } from 'node:os';
import { WORKER_ID } from '../environments/current.js';
import type { Logger } from '../logging/logger.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { AttemptLedger, type Settled } from './attempt-ledger.js';
import { BeatThread } from './beat-thread.js';

const { RecordActivityTaskHeartbeatRequest, RecordActivityTaskHeartbeatResponse } =
  proto.temporal.api.workflowservice.v1;

/** One attempt of an activity, as the heartbeat path and the activity's code see it. */
export class LiveCall {
  private readonly controller = new AbortController();
  private abortTimer?: NodeJS.Timeout;
  /** A later attempt waits for this one's outcome. */
  adopted = false;
  /** Every earlier attempt of this call provably ran nothing: this one is the first to run it. */
  earlierNeverRan = false;

  constructor(
    readonly key: string,
    private readonly liveness: Liveness,
    /** How long an attempt the server gave up keeps running for a later attempt to take it over. */
    private readonly adoptMs: number,
  ) {}

  /** What the call's work stops on: a cancellation; a superseded attempt only if no later one took it over. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The activity heartbeated itself: the thread keeps its details, and speaks for it when the event loop is late. */
  beat(details: unknown): void {
    void this.liveness.encode(this.key, details).then(
      (body) => this.liveness.thread?.beat(this.key, body),
      () => undefined,
    );
  }

  /** Cancellation as the SDK or the thread delivered it. */
  cancelled(details: Pick<ActivityCancellationDetails, 'notFound' | 'timedOut'> | undefined, why: string): void {
    if (details?.notFound || details?.timedOut) return this.gone();
    this.abort(why);
  }

  /** The server no longer knows this attempt: it stops unless a later attempt on this worker takes it over. */
  gone(): void {
    if (this.adopted || this.abortTimer) return;
    this.abortTimer = setTimeout(() => {
      if (!this.adopted) this.abort('the server gave this attempt up and no later attempt took it over');
    }, this.adoptMs);
    this.abortTimer.unref();
  }

  takenOver(): void {
    this.adopted = true;
    clearTimeout(this.abortTimer);
  }

  abort(why: string): void {
    clearTimeout(this.abortTimer);
    if (!this.controller.signal.aborted) this.controller.abort(new Error(why));
  }
}

const calls = new Map<string, LiveCall>();

/** The live call of the running activity attempt (by its task token), when the liveness interceptor registered it. */
export function liveCall(base64TaskToken: string): LiveCall | undefined {
  return calls.get(base64TaskToken);
}

export interface LivenessOptions {
  settings: Pick<TemporalSettings, 'address' | 'namespace' | 'tls' | 'apiKey'>;
  /** An event loop silent this long is wedged: its calls are left to time out and be taken over elsewhere. */
  stallMs: number;
  log: Logger;
  /**
   * Encodes a heartbeat's details as the worker's data converter does (the thread sends them as they are): the
   * default JSON converter unless a payload codec is configured.
   */
  encodeDetails?: (details: unknown) => Promise<Payload>;
  /** Start no thread (tests of the ledger alone). */
  noThread?: boolean;
}

/** Heartbeats every attempt whose event loop falls behind, and tells a busy worker's retries from a dead one's. */
export class Liveness {
  readonly thread?: BeatThread;
  readonly ledger = new AttemptLedger();
  private readonly identity = `${process.pid}@${hostname()}`;

  constructor(private readonly opts: LivenessOptions) {
    if (!opts.noThread)
      this.thread = new BeatThread(
        { ...opts.settings, stallMs: opts.stallMs },
        {
          gone: (key) => calls.get(key)?.gone(),
          answer: (key, body) => {
            const a = RecordActivityTaskHeartbeatResponse.decode(body);
            if (a.cancelRequested || a.activityPaused || a.activityReset)
              calls.get(key)?.abort(a.cancelRequested ? 'cancel requested' : a.activityPaused ? 'paused' : 'reset');
          },
        },
      );
  }

  /** The heartbeat request for one attempt, with `details` encoded as the worker encodes them. */
  async encode(key: string, details: unknown): Promise<Uint8Array> {
    const payload = this.opts.encodeDetails
      ? await this.opts.encodeDetails(details)
      : defaultPayloadConverter.toPayload(details);
    return RecordActivityTaskHeartbeatRequest.encode({
      namespace: this.opts.settings.namespace,
      identity: this.identity,
      taskToken: Buffer.from(key, 'base64'),
      details: { payloads: [payload] },
    }).finish();
  }

  close(): void {
    this.thread?.close();
  }

  /** The activity interceptor: first in the chain, so a call is heartbeated from the moment its code starts. */
  interceptor(): ActivityInterceptorsFactory {
    return (ctx) => ({
      inbound: {
        execute: async (input, next) => {
          const info = ctx.info;
          const timeoutMs = info.heartbeatTimeoutMs;
          if (!timeoutMs || !info.workflowExecution) return next(input);
          const token = info.base64TaskToken;
          const call = new LiveCall(token, this, Math.max(10_000, 5 * timeoutMs));
          calls.set(token, call);
          ctx.cancellationSignal.addEventListener('abort', () => call.cancelled(ctx.cancellationDetails, 'cancelled'));
          try {
            // Spoken for from now on; the first words name this worker, as the activity's own heartbeats do.
            if (this.thread)
              this.thread.start(
                token,
                await this.encode(token, { worker: WORKER_ID }),
                Math.max(200, timeoutMs * 0.55),
              );
            return await this.attempt(ctx, call, () => next(input) as Promise<unknown>);
          } finally {
            calls.delete(token);
            this.thread?.stop(token);
          }
        },
      },
    });
  }

  private async attempt(ctx: Context, call: LiveCall, run: () => Promise<unknown>): Promise<unknown> {
    const info = ctx.info;
    const key = `${info.workflowExecution!.workflowId}/${info.workflowExecution!.runId}/${info.activityId}`;
    const n = info.attempt;
    // Started long after it was scheduled (a backlog, or an event loop too busy to start it): the server may have
    // given this attempt up already. Then it runs nothing, and says so to a later attempt here, which runs the call.
    const late = Date.now() - info.currentAttemptScheduledTimestampMs > (info.heartbeatTimeoutMs ?? 0) / 2;
    if (late && (await this.thread?.verify(call.key)) === 'gone') {
      this.ledger.refuse(key, n);
      throw superseded(n);
    }
    // An attempt after one that left no heartbeat (it never reached this worker's code, or died at once) waits a
    // little for that one to show up here behind a busy event loop, where it would otherwise run as well.
    const traceless = n > 1 && (info.heartbeatDetails as { worker?: unknown } | undefined)?.worker === undefined;
    const start = await this.ledger.start(key, n, traceless ? info.heartbeatTimeoutMs : 0);
    if (start.kind === 'refuse') throw superseded(n);
    if (start.kind === 'adopt') {
      const { workflowId } = info.workflowExecution!;
      this.opts.log.info(
        { workflowId, activity: info.activityType, attempt: n },
        'a retry took over its earlier attempt, still running on this worker',
      );
      call.signal.addEventListener('abort', () => start.stop?.('the attempt that took it over was stopped'));
      return unwrap(await start.outcome);
    }
    call.earlierNeverRan = start.earlierNeverRan;
    const outcome = run().then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
    this.ledger.running(key, {
      attempt: n,
      outcome,
      adopted: false,
      onAdopted: () => call.takenOver(),
      stop: (why) => call.abort(why),
    });
    return unwrap(await outcome);
  }
}

function unwrap(s: Settled): unknown {
  if (s.ok) return s.value;
  throw s.error;
}

function superseded(attempt: number): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `attempt ${attempt} ran nothing: the server had given it up before it began, and a later attempt runs the call`,
    'Activity.Superseded',
  );
}
