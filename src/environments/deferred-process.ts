// TransportProcess stand-ins: one whose real process starts once a promise resolves (input written before then is
// queued), and one that failed before it started. Worker-only.
import type { EnvironmentError, TransportProcess } from './types.js';

type Pending = { kind: 'write'; data: string | Buffer } | { kind: 'end' };

export function deferredProcess(starting: Promise<TransportProcess>): TransportProcess {
  const listeners: ((c: Buffer) => void)[] = [];
  const pending: Pending[] = [];
  let real: TransportProcess | undefined;
  let destroyed = false;
  const exited = starting.then((p) => {
    real = p;
    p.onData((c) => listeners.forEach((l) => l(c)));
    for (const q of pending.splice(0)) {
      if (q.kind === 'write') p.write(q.data);
      else p.end();
    }
    if (destroyed) p.destroy();
    return p.exited;
  });
  return {
    onData: (l) => listeners.push(l),
    write: (data) => (real ? real.write(data) : pending.push({ kind: 'write', data })),
    end: () => (real ? real.end() : pending.push({ kind: 'end' })),
    exited,
    destroy: () => {
      destroyed = true;
      real?.destroy();
    },
  };
}

export function failedProcess(err: EnvironmentError): TransportProcess {
  const exited = Promise.reject(err);
  exited.catch(() => undefined); // the caller may never ask
  return { onData: () => undefined, write: () => undefined, end: () => undefined, exited, destroy: () => undefined };
}
