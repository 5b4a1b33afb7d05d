// A TransportProcess over a Modal `sandbox.exec` (its stdin, stdout and stderr streams and wait()). Worker-only.
import type { ContainerProcess } from 'modal';
import type { EnvironmentError, TransportProcess } from '../../types.js';

interface ModalExecRequest {
  /** Starts the exec; the handle is returned before it resolves, so stdin written early is queued. */
  start(): Promise<ContainerProcess<Uint8Array>>;
  stdin?: string;
  /** Maps a failure (of the exec or of wait()) to the backend's error, checking whether the sandbox is gone. */
  fail(err: unknown): Promise<EnvironmentError>;
  /** Decides whether an exit code means the sandbox was terminated under the process (137 from a killed sandbox). */
  gone(code: number): Promise<EnvironmentError | undefined>;
}

async function pump(
  stream: ReadableStream<Uint8Array>,
  emit: (b: Buffer) => void,
  cancelled: AbortSignal,
): Promise<void> {
  const reader = stream.getReader();
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  cancelled.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value.length > 0) emit(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } finally {
    cancelled.removeEventListener('abort', onAbort);
  }
}

export function modalProcess(req: ModalExecRequest): TransportProcess {
  const listeners: ((chunk: Buffer) => void)[] = [];
  const emit = (chunk: Buffer): void => {
    for (const l of listeners) l(chunk);
  };
  const destroyed = new AbortController();
  const started = req.start();
  // Writes go out in order, one at a time, once the exec exists; a failed write means the process is gone, which wait() reports.
  let stdinChain: Promise<unknown> = started.then((p) => p.stdin.getWriter());
  // A failed start is reported through `exited`; these two only keep Node from calling the rejection unhandled.
  stdinChain.catch(() => undefined);
  started.catch(() => undefined);
  const withWriter = (f: (w: WritableStreamDefaultWriter<Uint8Array>) => Promise<void>): void => {
    const next = stdinChain.then(async (w) => {
      await f(w as WritableStreamDefaultWriter<Uint8Array>).catch(() => undefined);
      return w;
    });
    next.catch(() => undefined);
    stdinChain = next;
  };
  const write = (data: string | Buffer): void =>
    withWriter((w) => w.write(typeof data === 'string' ? Buffer.from(data) : data));
  const end = (): void => withWriter((w) => w.close());
  if (req.stdin !== undefined) {
    if (req.stdin.length > 0) write(req.stdin);
    end();
  }

  const run = async (): Promise<number | null> => {
    let proc: ContainerProcess<Uint8Array>;
    try {
      proc = await started;
    } catch (err) {
      throw await req.fail(err);
    }
    try {
      const [, , code] = await Promise.all([
        pump(proc.stdout, emit, destroyed.signal),
        pump(proc.stderr, emit, destroyed.signal),
        proc.wait(),
      ]);
      const gone = await req.gone(code);
      if (gone) throw gone;
      return code;
    } catch (err) {
      if (destroyed.signal.aborted) return null;
      throw await req.fail(err);
    }
  };
  const exited = new Promise<number | null>((resolve, reject) => {
    destroyed.signal.addEventListener('abort', () => resolve(null));
    run().then(resolve, reject);
  });

  return {
    onData: (l) => void listeners.push(l),
    write,
    end,
    exited,
    destroy: () => destroyed.abort(),
  };
}
