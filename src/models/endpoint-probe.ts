// Whether a model endpoint answers at all: a TCP connection to its host, then any HTTP answer to GET <base>/models,
// within a deadline. A run's first model call races it, so an endpoint that refuses or never answers fails the run in
// seconds with the setting to fix, instead of retrying for minutes. Worker-only.
import { connect } from 'node:net';

export interface ProbeOptions {
  /** The whole probe, connection attempts and HTTP answer included. */
  deadlineMs: number;
  /** One connection attempt (a host that drops packets never answers). */
  connectMs: number;
  /** Between refused connection attempts (a server that is starting gets a few seconds). */
  retryMs: number;
  signal?: AbortSignal;
}

export const PROBE_DEFAULTS: ProbeOptions = { deadlineMs: 20_000, connectMs: 5_000, retryMs: 1_000 };

/** Why the endpoint does not answer; undefined when it does (any HTTP status counts: it is there). */
export type ProbeResult = { ok: true } | { ok: false; why: string };

function tryConnect(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (why: string | undefined): void => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer to a connection within ${Math.round(timeoutMs / 1000)} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(
        err.code === 'ECONNREFUSED'
          ? 'the connection was refused (ECONNREFUSED): nothing listens there'
          : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
            ? `the host name does not resolve (${err.code})`
            : `${err.code ?? err.message}`,
      ),
    );
  });
}

// The listener goes with the wait: twenty refused attempts left twenty on the signal, and Node warned of a leak
// (MaxListenersExceededWarning) on the user's terminal.
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const stop = (): void => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });

/** Probes `baseURL` (http or https) until it answers or the deadline passes. */
export async function probeEndpoint(baseURL: string, opts: ProbeOptions = PROBE_DEFAULTS): Promise<ProbeResult> {
  const url = new URL(baseURL);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const deadline = Date.now() + opts.deadlineMs;
  let why: string | undefined = 'not tried';
  while (!opts.signal?.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) return { ok: false, why };
    why = await tryConnect(host, port, Math.min(opts.connectMs, left));
    if (why === undefined) break;
    // A refused or unresolved connection is tried again: a server that is starting up gets the deadline.
    await sleep(Math.min(opts.retryMs, Math.max(0, deadline - Date.now())), opts.signal);
  }
  if (opts.signal?.aborted) return { ok: true };
  const left = Math.max(1, deadline - Date.now());
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), left);
  const stop = (): void => ctl.abort();
  opts.signal?.addEventListener('abort', stop, { once: true });
  try {
    const res = await fetch(`${baseURL.replace(/\/$/, '')}/models`, { signal: ctl.signal, redirect: 'manual' });
    await res.body?.cancel().catch(() => undefined);
    return { ok: true };
  } catch (err) {
    if (opts.signal?.aborted) return { ok: true };
    return ctl.signal.aborted
      ? {
          ok: false,
          why: `it accepts connections but sent no HTTP answer within ${Math.round(opts.deadlineMs / 1000)} s`,
        }
      : { ok: false, why: `no HTTP answer: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', stop);
  }
}
