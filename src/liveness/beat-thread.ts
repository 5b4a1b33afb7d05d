// The heartbeat thread: sends Temporal activity heartbeats from a thread of its own, so a worker whose event loop is
// starved (an overloaded machine, a long synchronous stretch) still says it is alive, while a dead process says
// nothing. It stops speaking for a process whose event loop has not answered for `stallMs`. Worker-only.
import { Worker } from 'node:worker_threads';
import type { TLSConfig } from '@temporalio/client';

/**
 * The thread's code (CommonJS, evaluated: no module files to find from a bundle or a test runner, no dependencies
 * to load while a worker starts). It knows nothing of protobuf: the main thread sends each request already encoded
 * (RecordActivityTaskHeartbeatRequest), and gets back the response bytes when they say more than "alive".
 */
const THREAD = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const http2 = require('node:http2');
const { address, tls, apiKey, namespace, stallMs, tickMs } = workerData;
const PATH = '/temporal.api.workflowservice.v1.WorkflowService/RecordActivityTaskHeartbeat';
const calls = new Map(); // key -> { body, lateMs, last, sending }
let lastWord = Date.now();
let session;

function open() {
  if (session && !session.closed && !session.destroyed) return session;
  const secure = Boolean(tls);
  const options = tls && typeof tls === 'object' ? {
    ...(tls.serverRootCACertificate ? { ca: Buffer.from(tls.serverRootCACertificate) } : {}),
    ...(tls.clientCertPair ? { cert: Buffer.from(tls.clientCertPair.crt), key: Buffer.from(tls.clientCertPair.key) } : {}),
    ...(tls.serverNameOverride ? { servername: tls.serverNameOverride } : {}),
  } : {};
  session = http2.connect((secure ? 'https://' : 'http://') + address, options);
  session.on('error', () => undefined);
  session.on('close', () => { session = undefined; });
  return session;
}

function frame(body) {
  const out = Buffer.alloc(5 + body.length);
  out.writeUInt32BE(body.length, 1);
  out.set(body, 5);
  return out;
}

// One RecordActivityTaskHeartbeat: resolves { code, body } (code 0 is OK, 5 NOT_FOUND: that attempt is over).
function record(body) {
  return new Promise((resolve) => {
    let stream;
    try {
      stream = open().request({
        ':method': 'POST', ':path': PATH, 'content-type': 'application/grpc', te: 'trailers',
        'grpc-timeout': '5000m', 'temporal-namespace': namespace,
        ...(apiKey ? { authorization: 'Bearer ' + apiKey } : {}),
      });
    } catch (err) {
      resolve({ code: undefined });
      return;
    }
    const chunks = [];
    let code;
    const status = (h) => { if (h['grpc-status'] !== undefined) code = Number(h['grpc-status']); };
    stream.setTimeout(6000, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    stream.on('response', status);
    stream.on('trailers', status);
    stream.on('data', (c) => chunks.push(c));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      const data = Buffer.concat(chunks);
      resolve({ code, body: data.length >= 5 ? data.subarray(5) : Buffer.alloc(0) });
    });
    stream.end(frame(body));
  });
}

async function send(key, c) {
  if (c.sending) return;
  c.sending = true;
  c.last = Date.now();
  const answer = await record(c.body);
  c.sending = false;
  if (answer.code === 5) {
    calls.delete(key);
    parentPort.postMessage({ type: 'gone', key });
  } else if (answer.code === 0 && answer.body.length > 0) {
    // All-false answers encode as an empty message: anything here is a cancellation, a pause or a reset.
    parentPort.postMessage({ type: 'answer', key, body: answer.body });
  }
}

parentPort.on('message', (m) => {
  lastWord = Date.now();
  if (m.type === 'start') calls.set(m.key, { body: m.body, lateMs: m.lateMs, last: Date.now(), sending: false });
  else if (m.type === 'beat') {
    const c = calls.get(m.key);
    if (c) { c.body = m.body; c.last = Date.now(); }
  } else if (m.type === 'stop') calls.delete(m.key);
  else if (m.type === 'verify') {
    const c = calls.get(m.key);
    if (!c) { parentPort.postMessage({ type: 'verified', id: m.id, state: 'unknown' }); return; }
    c.last = Date.now();
    record(c.body).then((a) => parentPort.postMessage({
      type: 'verified', id: m.id, state: a.code === 5 ? 'gone' : a.code === 0 ? 'current' : 'unknown',
    }));
  } else if (m.type === 'close') {
    calls.clear();
    if (session) session.close();
    parentPort.close();
  }
});

setInterval(() => {
  // An event loop silent this long is wedged, not busy: its calls are left to time out and be taken over.
  if (Date.now() - lastWord > stallMs) return;
  const now = Date.now();
  for (const [key, c] of calls) if (now - c.last >= c.lateMs) send(key, c);
}, tickMs);
`;

export interface BeatThreadOptions {
  address: string;
  namespace: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  /** An event loop silent longer than this is taken for wedged: the thread stops speaking for its calls. */
  stallMs: number;
}

type Verdict = 'current' | 'gone' | 'unknown';

/** What the thread tells about one call. */
export interface BeatEvents {
  /** The server no longer knows this attempt (it timed out, or the run ended). */
  gone(key: string): void;
  /** A heartbeat's answer that says more than "alive" (RecordActivityTaskHeartbeatResponse bytes). */
  answer(key: string, body: Uint8Array): void;
}

/** How often the thread looks for calls whose event loop is late. */
const TICK_MS = 100;
/** How often the event loop tells the thread it still runs. */
const WORD_MS = 500;

/** The main thread's side: registers calls with the thread, forwards their own heartbeats, asks it to verify. */
export class BeatThread {
  private readonly thread: Worker;
  private readonly word: NodeJS.Timeout;
  private readonly waiting = new Map<number, (v: Verdict) => void>();
  private nextId = 0;
  private closed = false;

  constructor(opts: BeatThreadOptions, events: BeatEvents) {
    this.thread = new Worker(THREAD, {
      eval: true,
      workerData: {
        address: opts.address,
        namespace: opts.namespace,
        tls: opts.tls,
        apiKey: opts.apiKey,
        stallMs: opts.stallMs,
        tickMs: TICK_MS,
      },
    });
    this.thread.on('message', (m: { type: string; key?: string; id?: number; state?: Verdict; body?: Uint8Array }) => {
      if (m.type === 'gone') events.gone(m.key!);
      else if (m.type === 'answer') events.answer(m.key!, m.body!);
      else if (m.type === 'verified') {
        this.waiting.get(m.id!)?.(m.state!);
        this.waiting.delete(m.id!);
      }
    });
    // A thread that fails leaves heartbeats to the event loop, as before it existed.
    this.thread.on('error', () => this.settleAll());
    this.thread.on('exit', () => this.settleAll());
    this.thread.unref();
    this.word = setInterval(() => this.post({ type: 'tick' }), WORD_MS);
    this.word.unref();
  }

  private settleAll(): void {
    this.closed = true;
    for (const done of this.waiting.values()) done('unknown');
    this.waiting.clear();
  }

  private post(m: Record<string, unknown>): void {
    if (!this.closed) this.thread.postMessage(m);
  }

  /** The thread heartbeats `body` for this call whenever the event loop has not for `lateMs`. */
  start(key: string, body: Uint8Array, lateMs: number): void {
    this.post({ type: 'start', key, body, lateMs });
  }

  /** The event loop heartbeated the call itself (through the SDK); `body` carries its latest details. */
  beat(key: string, body: Uint8Array): void {
    this.post({ type: 'beat', key, body });
  }

  stop(key: string): void {
    this.post({ type: 'stop', key });
  }

  /** Heartbeats the call now: `gone` when the server no longer knows this attempt. */
  verify(key: string): Promise<Verdict> {
    if (this.closed) return Promise.resolve('unknown');
    const id = (this.nextId += 1);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.post({ type: 'verify', key, id });
    });
  }

  close(): void {
    clearInterval(this.word);
    this.post({ type: 'close' });
    this.settleAll();
  }
}
