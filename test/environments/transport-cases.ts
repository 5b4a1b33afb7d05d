// The transport cases every backend's transport test runs (exit codes, signals, stdin, concurrency, PTY, a gone
// environment, repeated close), so each backend's own file keeps only what is particular to it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EnvironmentError,
  type SpawnOptions,
  type Transport,
  type TransportProcess,
} from '../../src/environments/types.js';

export interface TransportCaseOptions {
  /** Why the backend cannot run here (the cases are then skipped with it), or undefined. Called once the suite runs. */
  skip?: () => string | undefined;
  /** A started transport the cases may use and close themselves. */
  fresh: () => Promise<Transport>;
  /** Ends the environment from outside, as a killed container or a stopped sandbox; absent where nothing can. */
  killFromOutside?: (t: Transport) => Promise<void> | void;
  /** False where ending the environment from outside cannot reach a command already running (a fake CLI). */
  killsRunning?: boolean;
  /** False where close() leaves the environment as it was (local: the host's own directory). */
  closeEnds?: boolean;
}

/** Output (stdout and stderr as they arrive) and exit code of one spawned script. */
export async function runScript(
  t: Transport,
  script: string,
  opts?: SpawnOptions & { stdin?: string },
): Promise<{ code: number | null; out: string }> {
  const p = t.spawn(script, opts);
  const out = collected(p);
  const code = await p.exited;
  return { code, out: out() };
}

function collected(p: TransportProcess): () => string {
  const chunks: Buffer[] = [];
  p.onData((c) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

/** Resolves once the process printed `text`; waits on output, never on a clock. */
function printed(p: TransportProcess, text: string): Promise<void> {
  let seen = '';
  return new Promise((resolve) => p.onData((c) => (seen += c.toString()).includes(text) && resolve()));
}

/** The rejection of `p`, which must be an EnvironmentError. */
export async function environmentFailure(p: Promise<unknown>): Promise<EnvironmentError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EnvironmentError);
  return error as EnvironmentError;
}

export function describeTransportCases(name: string, o: TransportCaseOptions): void {
  describe(`${name}: shared transport cases`, () => {
    const test = (title: string, fn: (t: Transport) => Promise<void>) =>
      it(title, async (ctx) => {
        const why = o.skip?.();
        if (why) ctx.skip(why);
        const t = await o.fresh();
        try {
          await fn(t);
        } finally {
          await t.close();
        }
      });

    test('delivers stdout and stderr and the exit code, quotes intact', async (t) => {
      const r = await runScript(t, `printf '%s|\\n' "it's" '$HOME' "a  b"; echo out; echo err >&2; exit 3`);
      expect(r.code).toBe(3);
      // Two pipes on some backends: the order of lines between stdout and stderr is the far side's.
      expect(r.out.split('\n').sort()).toEqual(['', 'a  b|', 'err', "it's|", '$HOME|', 'out'].sort());
    });

    test('reports death by a signal as 128 + n, and the environment stays alive', async (t) => {
      expect((await runScript(t, 'kill -9 $$')).code).toBe(137);
      expect((await runScript(t, 'kill -TERM $$')).code).toBe(143);
      expect(await t.alive()).toBe(true);
    });

    test('gives stdin whole and then closes it', async (t) => {
      const input = 'line one\nit\'s $HOME `date` "quoted"\n\u00e9t\u00e9\n';
      expect(await runScript(t, 'cat; echo end; exit 5', { stdin: input })).toEqual({ code: 5, out: `${input}end\n` });
    });

    test('streams stdin while the process runs where the backend can, and says so where it cannot', async (t) => {
      if (!t.capabilities.streamsStdin) {
        // Without stdin the command reads an empty input at once instead of hanging on an open pipe.
        expect(await runScript(t, 'cat; echo done')).toEqual({ code: 0, out: 'done\n' });
        return;
      }
      const p = t.spawn('while read -r line; do echo "got $line"; done; echo eof');
      const out = collected(p);
      p.write('a\n');
      // The second line goes only once the first was answered: stdin really streams.
      await printed(p, 'got a');
      p.write(Buffer.from('b\n'));
      p.end();
      expect(await p.exited).toBe(0);
      expect(out()).toBe('got a\ngot b\neof\n');
    });

    test('runs two processes at once', async (t) => {
      const flag = `/tmp/tether-flag-${randomBytes(4).toString('hex')}`;
      // The first can only finish once the second ran: they would deadlock if spawns were serialised.
      const first = runScript(
        t,
        `i=0; while [ ! -f ${flag} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; [ -f ${flag} ] && echo saw-flag; rm -f ${flag}`,
      );
      const second = runScript(t, `touch ${flag}; echo touched`);
      expect(await Promise.all([first, second])).toEqual([
        { code: 0, out: 'saw-flag\n' },
        { code: 0, out: 'touched\n' },
      ]);
    });

    test('allocates a PTY of the asked size where the backend can; refuses it as Environment.Unsupported where not', async (t) => {
      if (!t.capabilities.pty) {
        const refused = await environmentFailure(t.spawn('true', { pty: { cols: 80, rows: 24 } }).exited);
        expect(refused.code).toBe('Environment.Unsupported');
        return;
      }
      const tty = await runScript(t, 'stty size', { pty: { cols: 100, rows: 30 } });
      expect(tty).toEqual({ code: 0, out: '30 100\r\n' });
      expect((await runScript(t, 'test -t 1 && echo tty || echo no-tty')).out).toBe('no-tty\n');
      const probe = t.spawn('true', { pty: { cols: 80, rows: 24 } });
      expect(await probe.exited).toBe(0);
      if (!probe.resize) return;
      // Resizing reaches the far side's terminal: the loop ends once it sees the new size.
      const p = t.spawn(
        'i=0; while [ "$(stty size)" != "40 120" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; stty size',
        {
          pty: { cols: 80, rows: 24 },
        },
      );
      const out = collected(p);
      p.resize?.({ cols: 120, rows: 40 });
      expect(await p.exited).toBe(0);
      expect(out()).toBe('40 120\r\n');
    });

    test('an environment ended from outside is gone: running and new commands reject with Environment.Gone', async (t) => {
      if (!o.killFromOutside) return;
      const running = o.killsRunning === false ? undefined : t.spawn('echo started; sleep 30');
      if (running) await printed(running, 'started');
      await o.killFromOutside(t);
      if (running) expect((await environmentFailure(running.exited)).code).toBe('Environment.Gone');
      expect(await t.alive()).toBe(false);
      expect((await environmentFailure(t.spawn('echo hi').exited)).code).toBe('Environment.Gone');
    });

    test('close() ends the environment and may be called again', async (t) => {
      expect(await t.alive()).toBe(true);
      await t.close();
      expect(await t.alive()).toBe(o.closeEnds === false);
      await t.close();
    });
  });
}
