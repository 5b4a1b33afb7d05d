// A worker's identity as Temporal records it (in the poller list and in each task's history event): the process, its
// host and the model endpoint it calls, so `tether run` can say which endpoint the worker that took a run will use.
// Worker-only (pure).
import { hostname } from 'node:os';

const MARK = ' model ';

/** An endpoint as shown to people: no user name, password, query or fragment (a URL may carry a key in them). */
export function shownEndpoint(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(not a URL)';
  }
}

/** `1234@host model http://127.0.0.1:8000/v1 (OPENAI_BASE_URL)`: Temporal's default identity plus the endpoint. */
export function workerIdentity(endpoint: string, pid = process.pid, host = hostname()): string {
  return `${pid}@${host}${MARK}${endpoint}`.slice(0, 500);
}

/** The model endpoint a worker's identity names; undefined for workers that do not say (older ones, other SDKs). */
export function endpointOfIdentity(identity: string | null | undefined): string | undefined {
  const at = identity?.indexOf(MARK) ?? -1;
  return at < 0 ? undefined : identity!.slice(at + MARK.length);
}
