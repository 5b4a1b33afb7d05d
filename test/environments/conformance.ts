// The conformance suite every terminal backend runs: the terminal and process tools through the registry's one
// dispatch path, against a real (or, for cloud backends, a named double's) environment.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { configureEnvironments, environmentManager } from '../../src/environments/current.js';
import { registry } from '../../src/registry/index.js';
import { readScriptsIn } from '../../src/environments/read-scripts.js';
import { LISTING, prefetchKey } from '../../src/detector/engine/scripts.js';
import { until } from '../support/cli.js';
import '../../src/tools/terminal.js';
import '../../src/tools/process.js';

const sha = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

export interface ConformanceTarget {
  /** The `terminal:` section of config.yaml for this backend. */
  terminal: Record<string, unknown>;
  /** The run's working directory on this machine (local backend; mount source elsewhere). */
  hostCwd: string;
  /** Destroys the task's environment from outside (kills the container, restarts the server, ...). */
  breakEnvironment?: (taskId: string) => Promise<void>;
  /** After breakEnvironment, the next command runs in a new environment (containers) or the old one (SSH reconnects). */
  recreatedAfterBreak?: boolean;
  stop?: () => Promise<void>;
  /** Commands run in one long-lived shell per task: a command that kills that shell is told it was replaced. */
  persistentShell?: boolean;
}

/** Live (not zombie) processes on this machine whose command line contains (or starts with) `token`. */
function liveWith(token: string, starts = false): number[] {
  const found: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      if (
        (starts ? cmd.startsWith(token) : cmd.includes(token)) &&
        readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /, '')[0] !== 'Z'
      )
        found.push(Number(d));
    } catch {
      // it ended while we looked
    }
  }
  return found;
}

/** Fake credentials put into the worker's own environment for the whole suite. */
const WORKER_SECRETS: Record<string, string> = {
  OPENAI_API_KEY: 'sk-conformance-QX7vT2mWq9Lz',
  AWS_SECRET_ACCESS_KEY: 'conformance/AwsK3yZp8RtY',
  GITHUB_TOKEN: 'ghp_conformanceR4nd0mT0k3n',
  TETHER_TEST_PASSWORD: 'conformance-pa55w0rd-Vb',
};

type Result = Record<string, unknown> & { exit_code?: number | null; output?: string; error?: string };

export function describeConformance(name: string, setup: () => Promise<ConformanceTarget | string>): void {
  let target: ConformanceTarget | undefined;
  let skip: string | undefined;
  let n = 0;
  const task = (): string => `conf-${name.replace(/[^a-z0-9]/gi, '')}-${process.pid}-${++n}`;
  const call = async (tool: string, taskId: string, args: object): Promise<Result> =>
    JSON.parse(await registry.dispatch(tool, JSON.stringify(args), { taskId, cwd: target!.hostCwd })) as Result;
  const sh = (taskId: string, args: object): Promise<Result> => call('terminal', taskId, args);
  const proc = (taskId: string, args: object): Promise<Result> => call('process', taskId, args);
  const pollUntil = async (taskId: string, id: string, pattern: RegExp): Promise<string> => {
    let seen = '';
    for (let i = 0; i < 100 && !pattern.test(seen); i += 1) {
      const r = await proc(taskId, { action: 'poll', process_id: id });
      seen += String(r.new_output ?? '');
      if (!pattern.test(seen)) await new Promise((res) => setTimeout(res, 100));
    }
    return seen;
  };

  describe(`terminal conformance: ${name}`, () => {
    beforeAll(async () => {
      const t = await setup();
      if (typeof t === 'string') {
        skip = t;
        return;
      }
      target = t;
      // The worker holds secrets of its own; only what a person names may reach a command.
      Object.assign(process.env, WORKER_SECRETS, { CONFORMANCE_PASSED: 'named-by-a-person' });
      await configureEnvironments(
        parseConfig({
          terminal: {
            ...t.terminal,
            env: { CONFORMANCE_API_KEY: 'sekrit-value-123' },
            env_passthrough: ['CONFORMANCE_PASSED'],
          },
        }).terminal,
      );
    }, 300_000);
    afterAll(async () => {
      await environmentManager().closeAll();
      await target?.stop?.();
    }, 120_000);
    const test = (title: string, fn: (skipTest: (why: string) => void) => Promise<void>, timeout = 60_000): void => {
      it(
        title,
        async (ctx) => {
          if (skip) ctx.skip(skip);
          await fn((why) => ctx.skip(why));
        },
        timeout,
      );
    };

    test('reports exit codes and stderr', async () => {
      const t = task();
      const r = await sh(t, { command: 'echo out; echo err >&2; exit 3' });
      expect(r.exit_code).toBe(3);
      expect(r.output).toBe('out\nerr\n');
      expect((await sh(t, { command: 'true' })).exit_code).toBe(0);
    });

    test('carries cd and export over to the next command; workdir is one-off', async () => {
      const t = task();
      const start = String((await sh(t, { command: 'pwd' })).output).trim();
      expect(
        (await sh(t, { command: 'mkdir -p conf-sub/deeper && cd conf-sub && export CONF_VAR=forty-two' })).exit_code,
      ).toBe(0);
      expect((await sh(t, { command: 'pwd; echo "$CONF_VAR"' })).output).toBe(`${start}/conf-sub\nforty-two\n`);
      expect((await sh(t, { command: 'pwd', workdir: 'conf-sub/deeper' })).output).toBe(`${start}/conf-sub/deeper\n`);
      expect((await sh(t, { command: 'pwd' })).output).toBe(`${start}/conf-sub\n`);
      const other = task();
      expect((await sh(other, { command: 'echo "[$CONF_VAR]"' })).output).toBe('[]\n');
    });

    test('what a command writes into the carried state is read as data: planted code never runs, a planted PAGER is not carried', async () => {
      const t = task();
      expect((await sh(t, { command: 'export PLANT_KEEP=kept' })).exit_code).toBe(0);
      // A prompt-injected command that knows where the state lives: it skips its own save and writes the file itself.
      const plant = await sh(t, {
        command:
          '__tsaved=1; __ts=0; printf "touch planted-a\\n" > "$__td/env"; ' +
          'printf "touch planted-b\\000PAGER=touch planted-c\\000=end\\000" >> "$__td/env"; echo planted',
      });
      expect(plant.output).toBe('planted\n');
      const next = await sh(t, {
        command:
          'ls planted-* 2>/dev/null; echo "pager=[$PAGER]"; git --version >/dev/null 2>&1; ls planted-* 2>/dev/null; echo done',
      });
      expect(next.output).not.toMatch(/planted/);
      expect(next.output).not.toMatch(/pager=\[touch/);
      expect(next.output).toMatch(/done\n$/);
      // Variables that make programs run code are not carried even when set the normal way.
      expect((await sh(t, { command: 'export PAGER=cat GIT_SSH_COMMAND=ssh PLANT_AFTER=1' })).exit_code).toBe(0);
      expect((await sh(t, { command: 'echo "[$GIT_SSH_COMMAND] [$PLANT_AFTER]"' })).output).toBe('[] [1]\n');
    });

    test('gives standard input', async () => {
      expect((await sh(task(), { command: 'cat', stdin: 'line one\nline two\n' })).output).toBe('line one\nline two\n');
    });

    test('kills a command at its timeout, with exit code 124, the output so far, and its children', async () => {
      const t = task();
      const r = await sh(t, {
        // The parent writes the child's pid as soon as it forked it, so a slow start of the child cannot leave it out.
        command: "echo before; sh -c 'sleep 3; touch late-marker' & echo $! > late-pid; sleep 30; echo after",
        timeout: 1,
      });
      expect(r.exit_code).toBe(124);
      expect(r.error).toMatch(/timed out after 1s/);
      expect(r.output).toMatch(/^before\n/);
      expect(r.output).not.toMatch(/after/);
      // A child the kill missed would touch the marker before it exits: wait for it to be gone (a zombie counts), then look.
      expect((await sh(t, { command: 'test -s late-pid && echo has-pid' })).output).toBe('has-pid\n');
      const childState = `p=$(cat late-pid); if kill -0 "$p" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then echo alive; else echo gone; fi`;
      await until(
        "the timed-out command's child to be gone",
        async () => (await sh(t, { command: childState })).output === 'gone\n',
        30_000,
      );
      expect((await sh(t, { command: 'test -e late-marker && echo present || echo absent' })).output).toBe('absent\n');
    });

    test('a cancelled command returns only when its whole group is gone, a TERM-ignoring child included', async () => {
      const t = task();
      const abort = new AbortController();
      // A sleep with a duration nothing else has: the test finds the child by it in the host's /proc (every backend
      // of this suite runs on this machine's kernel; a sandbox's own PID namespace hides pids from later commands).
      const token = `30.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}7`;
      const command = `sh -c 'trap "" TERM; sleep ${token}; touch cancel-marker' & sleep 30`;
      const ran = registry.dispatch('terminal', JSON.stringify({ command }), {
        taskId: t,
        cwd: target!.hostCwd,
        signal: abort.signal,
      });
      // The child itself (its command line starts with the sleep; the shells around it only contain it).
      const child = (): number[] => liveWith(`sleep ${token}`, true);
      for (let i = 0; i < 150 && child().length === 0; i += 1) await new Promise((res) => setTimeout(res, 200));
      expect(child()).toHaveLength(1);
      abort.abort();
      expect((JSON.parse(await ran) as Result).error).toBe('Command was cancelled and killed');
      // Looked at right after the cancelled call returned: the child that ignored TERM is already gone.
      expect(liveWith(`sleep ${token}`)).toEqual([]);
    });

    test('a command that reads standard input does not eat the next command', async () => {
      const t = task();
      const none = await sh(t, { command: 'cat; read x; echo "[$x]"' });
      expect(none).toMatchObject({ exit_code: 0, output: '[]\n' });
      expect((await sh(t, { command: 'cat', stdin: 'given\n' })).output).toBe('given\n');
      expect((await sh(t, { command: 'read a; echo "<$a>"; cat', stdin: 'one\ntwo\n' })).output).toBe('<one>\ntwo\n');
      expect((await sh(t, { command: 'echo next' })).output).toBe('next\n');
    });

    test('exit, exec and a killed shell end only that command; cwd and exports carry over to the next', async () => {
      const t = task();
      const start = String((await sh(t, { command: 'pwd' })).output).trim();
      const kept = `${start}/leak-dir\n1\n`;
      expect((await sh(t, { command: 'mkdir -p leak-dir && cd leak-dir && export LEAK_KEEP=1' })).exit_code).toBe(0);
      const exited = await sh(t, { command: 'echo bye; exit 5' });
      expect(exited).toMatchObject({ exit_code: 5, output: 'bye\n' });
      expect(exited.shell).toBeUndefined();
      expect((await sh(t, { command: 'pwd; echo "$LEAK_KEEP"' })).output).toBe(kept);
      const execd = await sh(t, { command: 'exec sh -c "echo replaced; exit 6"' });
      expect(execd).toMatchObject({ exit_code: 6, output: 'replaced\n' });
      expect((await sh(t, { command: 'pwd; echo "$LEAK_KEEP"' })).output).toBe(kept);
      const killed = await sh(t, { command: 'echo going; kill -9 $$; sleep 5; echo not-reached' });
      expect(killed.exit_code).toBe(137);
      expect(killed.output).toMatch(/^going\n/);
      expect(killed.output).not.toMatch(/not-reached/);
      if (target!.persistentShell) expect(killed.shell).toMatch(/shell ended during this command.*new shell/);
      else expect(killed.shell).toBeUndefined();
      expect((await sh(t, { command: 'pwd; echo "$LEAK_KEEP"' })).output).toBe(kept);
    });

    test('traps, set -e, functions, aliases and unexported variables do not reach the next command', async () => {
      const t = task();
      const first = await sh(t, {
        command:
          'set -e; trap "echo trapped" EXIT INT; leak_fn() { echo fn; }; alias leak_alias=true; LEAK_LOCAL=1; false; echo unreachable',
      });
      expect(first).toMatchObject({ exit_code: 1, output: 'trapped\n' });
      const next = await sh(t, {
        command:
          'false; echo still-runs; command -v leak_fn >/dev/null && echo has-fn; alias leak_alias >/dev/null 2>&1 && echo has-alias; echo "[$LEAK_LOCAL]"',
      });
      expect(next).toMatchObject({ exit_code: 0, output: 'still-runs\n[]\n' });
    });

    test('a timeout kills the command, not the task shell: the next command runs with its state', async () => {
      const t = task();
      expect((await sh(t, { command: 'export TIMEOUT_KEEP=kept' })).exit_code).toBe(0);
      const r = await sh(t, { command: 'echo started; sleep 30', timeout: 1 });
      expect(r.exit_code).toBe(124);
      expect(r.output).toMatch(/^started\n/);
      expect(r.shell).toBeUndefined();
      const after = await sh(t, { command: 'echo "$TIMEOUT_KEEP"' });
      expect(after).toMatchObject({ exit_code: 0, output: 'kept\n' });
      expect(after.shell).toBeUndefined();
    });

    test('caps long output, keeping 40% head and 60% tail', async () => {
      const r = await sh(task(), {
        command:
          'echo FIRST; i=0; while [ $i -lt 4000 ]; do echo "line $i of filler text for the cap test"; i=$((i+1)); done; echo LAST',
      });
      const out = String(r.output);
      expect(out.length).toBeLessThan(50_300);
      expect(out.startsWith('FIRST\n')).toBe(true);
      expect(out.trimEnd().endsWith('LAST')).toBe(true);
      const notice = out.indexOf('[... output truncated');
      expect(notice).toBeGreaterThan(19_000);
      expect(notice).toBeLessThan(21_000);
    });

    test('turns binary output into text, never failing', async () => {
      const r = await sh(task(), { command: 'head -c 3000 /dev/urandom; printf "\\377\\376 done"' });
      expect(r.exit_code).toBe(0);
      expect(String(r.output)).toMatch(/^\[binary output:/);
      expect(String(r.output)).toMatch(/done$/);
    });

    test("gives commands an allowlisted environment: none of the worker's secrets, what a person named", async () => {
      const t = task();
      const shown = [String((await sh(t, { command: 'env' })).output)];
      const onPty = await sh(t, { command: 'env', pty: true });
      if (onPty.error === undefined) shown.push(String(onPty.output));
      else expect(onPty.error).toMatch(/no PTY support/);
      const bg = await sh(t, { command: 'env; sleep 5', background: true });
      shown.push(await pollUntil(t, String(bg.process_id), /CONFORMANCE_PASSED/));
      for (const out of shown) {
        expect(out).toMatch(/CONFORMANCE_PASSED=named-by-a-person/);
        expect(out).toMatch(/CONFORMANCE_API_KEY=/); // terminal.env: set by a person, redacted in output
        for (const [name, value] of Object.entries(WORKER_SECRETS)) {
          expect(out).not.toContain(name);
          expect(out).not.toContain(value);
        }
      }
    });

    test('reads what the gate judges in one round: scripts, listings, compiled and oversized files', async () => {
      const t = task();
      const made = await sh(t, {
        command:
          "mkdir -p gate/pkg && printf 'echo one\\n' > gate/a.sh && printf 'x\\000y' > gate/bin && : > gate/empty " +
          "&& head -c 70000 /dev/zero | tr '\\0' a > gate/big && printf 'tail' > gate/pkg/'sp ace.py' && cd gate",
      });
      expect(made.exit_code).toBe(0);
      const keys = [
        'a.sh',
        'bin',
        'empty',
        'big',
        'pkg/sp ace.py',
        'nope.py',
        'pkg',
        `${LISTING}pkg`,
        `${LISTING}`,
        prefetchKey('', '.sh'),
      ];
      const read = await environmentManager().use(t, { hostCwd: target!.hostCwd }, ({ env }) =>
        readScriptsIn(env, keys),
      );
      expect(Object.fromEntries(read)).toEqual({
        // Each file read carries the digest of its raw bytes: what runs must be those bytes (judged-bytes.ts).
        'a.sh': { text: 'echo one\n', digest: sha('echo one\n') },
        bin: { binary: true, digest: sha('x\0y') },
        empty: { text: '', digest: sha('') },
        big: { error: expect.stringMatching(/too big to check/) as unknown },
        'pkg/sp ace.py': { text: 'tail', digest: sha('tail') },
        'nope.py': { missing: true },
        pkg: { directory: true },
        [`${LISTING}pkg`]: { entries: ['sp ace.py'] },
        [LISTING]: { entries: expect.arrayContaining(['a.sh', 'pkg/', 'big']) as unknown },
        // Read ahead: the .sh files of the directory, each under its own name (a.sh was read as a key too).
        [prefetchKey('', '.sh')]: { entries: ['a.sh'] },
      });
      // More files than one round prints: every one is read, each with its own text.
      const many = Array.from({ length: 70 }, (_, i) => `m${i}.py`);
      await sh(t, { command: 'for i in $(seq 0 69); do echo "import m$i" > m$i.py; done' });
      const all = await environmentManager().use(t, { hostCwd: target!.hostCwd }, ({ env }) =>
        readScriptsIn(env, many),
      );
      expect(many.map((k) => all.get(k))).toEqual(
        many.map((_, i) => ({ text: `import m${i}\n`, digest: sha(`import m${i}\n`) })),
      );
    });

    test('redacts the values of secret variables', async () => {
      const r = await sh(task(), { command: 'echo "key=$CONFORMANCE_API_KEY"' });
      expect(r.output).toBe('key=[REDACTED CONFORMANCE_API_KEY]\n');
    });

    test('runs background processes: start, poll, write, submit, close, list, kill', async () => {
      const t = task();
      const started = await sh(t, {
        command: 'echo ready; read a; echo "got:$a"; cat; echo eof; sleep 30',
        background: true,
      });
      const id = String(started.process_id);
      expect(id).toMatch(/^proc_/);
      expect(await pollUntil(t, id, /ready/)).toMatch(/ready/);
      await proc(t, { action: 'submit', process_id: id, data: 'hello' });
      expect(await pollUntil(t, id, /got:hello/)).toMatch(/got:hello/);
      await proc(t, { action: 'write', process_id: id, data: 'partial ' });
      await proc(t, { action: 'write', process_id: id, data: 'line\n' });
      await proc(t, { action: 'close', process_id: id });
      expect(await pollUntil(t, id, /eof/)).toMatch(/partial line\neof/);
      const list = (await proc(t, { action: 'list' })).processes as { id: string; status: string }[];
      expect(list.find((p) => p.id === id)?.status).toBe('running');
      const killed = await proc(t, { action: 'kill', process_id: id });
      expect(killed.result).toBe('killed');
      expect(killed.status).toBe('exited');
      const log = await proc(t, { action: 'log', process_id: id, offset: 0 });
      expect(String(log.output)).toMatch(/^ready\ngot:hello\n/);
      expect((await proc(t, { action: 'poll', process_id: 'proc_999' })).error).toMatch(
        /no background process 'proc_999'/,
      );
    });

    test('waits for a background process to exit', async () => {
      const t = task();
      const id = String((await sh(t, { command: 'sleep 1; echo finished; exit 7', background: true })).process_id);
      const w = await proc(t, { action: 'wait', process_id: id, timeout: 20 });
      expect(w.status).toBe('exited');
      expect(w.exit_code).toBe(7);
      expect(w.output_tail).toBe('finished\n');
    });

    test('runs programs on a PTY', async () => {
      const t = task();
      const withPty = await sh(t, { command: 'tty', pty: true });
      if (withPty.error !== undefined) {
        // A backend without PTYs must say so clearly; nothing more to check.
        expect(withPty.error).toMatch(/no PTY support/);
        return;
      }
      expect(withPty.output).toMatch(/^\/dev\/pts\/\d+\n$/);
      expect((await sh(t, { command: 'tty' })).output).toMatch(/not a tty/);
      const id = String(
        (await sh(t, { command: 'printf "name? "; read n; echo "hi $n"; sleep 30', pty: true, background: true }))
          .process_id,
      );
      expect(await pollUntil(t, id, /name\? /)).toMatch(/name\?/);
      await proc(t, { action: 'submit', process_id: id, data: 'bob' });
      expect(await pollUntil(t, id, /hi bob/)).toMatch(/hi bob/);
      expect((await proc(t, { action: 'kill', process_id: id })).result).toBe('killed');
    });

    test('recovers after the environment is broken from outside', async (skipTest) => {
      if (!target?.breakEnvironment) return skipTest(`${name} has nothing to break from outside`);
      const t = task();
      expect((await sh(t, { command: 'export KEEP=1; echo up' })).output).toBe('up\n');
      await target!.breakEnvironment!(t);
      let r = await sh(t, { command: 'echo "again[$KEEP]"' }).catch((err: Error) => ({ error: err.message }) as Result);
      // A retryable failure (the backend was unreachable mid-reconnect) is what Temporal retries; do the same once.
      if (r.exit_code === undefined) r = await sh(t, { command: 'echo "again[$KEEP]"' });
      if (target!.recreatedAfterBreak) {
        expect(r.output).toBe('again[]\n');
        expect(String(r.environment_recreated)).toMatch(/was gone/);
      } else {
        expect(r.output).toBe('again[1]\n');
      }
    }, 120_000);
  });
}
