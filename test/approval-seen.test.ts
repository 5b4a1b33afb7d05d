// "What the person sees is what runs" (issue 37) and "approvals cover what the person saw" (issue 31), on a real
// `tether worker` process, the dev server and the scripted model, one test per way a person approved X and Y ran:
// a script swapped after the gate read it, the hidden tail of a long command, redaction that hid code, a wider
// approval of a rule, a config.yaml changed during the run, and a cancelled run still listed as waiting.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import type { ApprovalDecision, PendingApproval } from '../src/common/approval-types.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { cliPath, runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel, type ChatRequest, type ScriptedReply } from './support/scripted-model.js';
import { startWorkerProcess, workerEnv, workerProcessSuite, type WorkerProcess } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();

/** One project directory per test; `ran.txt` is where approved commands leave a line. */
const project = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-seen-')));
const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
const taskOf = (req: ChatRequest): string => req.messages.find((m) => m.role === 'user')?.content ?? '';
const lastTool = (req: ChatRequest): string =>
  [...req.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';
const terminal = (command: string, more: Record<string, unknown> = {}): ScriptedReply => ({
  toolCalls: [{ name: 'terminal', arguments: { command, ...more } }],
});

interface Setup {
  env: Record<string, string>;
  taskQueue: string;
  worker: WorkerProcess;
  /** What the model was given after each tool call, by task. */
  seen: Map<string, string[]>;
}

/**
 * A worker process whose scripted model plays `scripts[task]` turn by turn (any task, one worker) and then answers
 * "done"; `config` is its config.yaml.
 */
async function setUp(name: string, scripts: Record<string, ScriptedReply[]>, config = ''): Promise<Setup> {
  const seen = new Map<string, string[]>();
  const model = await startScriptedModel(
    Array.from({ length: 12 }, (_, turn) => (req: ChatRequest) => {
      const task = taskOf(req);
      if (turn > 0) seen.set(task, [...(seen.get(task) ?? []), lastTool(req)]);
      return scripts[task]?.[turn] ?? { content: 'done' };
    }),
  );
  models.push(model);
  const w = workerEnv(inject('temporalAddress'), model.url, name);
  writeFileSync(join(w.env.TETHER_HOME!, 'config.yaml'), config);
  const worker = await workers.start(w.env);
  return { env: w.env, taskQueue: w.taskQueue, worker, seen };
}

async function start(s: Setup, task: string, cwd: string): Promise<WorkflowHandle> {
  return client().workflow.start('agentWorkflow', {
    taskQueue: s.taskQueue,
    workflowId: `seen-${task}-${randomUUID().slice(0, 8)}`,
    args: [{ task, model: 'scripted', cwd }],
  });
}

const state = (h: WorkflowHandle): Promise<AgentState> => h.query<AgentState>('state');

/** The next pending approval that is not one of `known`. */
async function nextPending(h: WorkflowHandle, known: readonly PendingApproval[] = []): Promise<PendingApproval> {
  let found: PendingApproval | undefined;
  await until('a new pending approval', async () => {
    found = (await state(h)).pendingApprovals.find((p) => !known.some((k) => k.approvalId === p.approvalId));
    return found !== undefined;
  });
  return found!;
}

/**
 * After a decision: the next pending approval, or undefined when, instead, something ran (the marker grew past
 * `ran` lines) or the run ended. Lets a test check what ran before anything else.
 */
async function askedOrRan(
  h: WorkflowHandle,
  known: readonly PendingApproval[],
  marker: string,
  ran: number,
): Promise<PendingApproval | undefined> {
  let found: PendingApproval | undefined;
  await until('another approval, or the command to run', async () => {
    const s = await state(h);
    found = s.pendingApprovals.find((p) => !known.some((k) => k.approvalId === p.approvalId));
    return found !== undefined || lines(marker).length > ran || s.status !== 'running';
  });
  return found;
}

const decide = (h: WorkflowHandle, d: ApprovalDecision): Promise<{ applies?: string }> =>
  h.executeUpdate('decideApproval', { args: [d] });

describe('what the person sees is what runs', () => {
  it('a script rewritten by a background command after the gate read it asks again with its new text, and never runs unjudged', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    writeFileSync(join(cwd, 'x.sh'), `echo judged >> ${marker}\nkubectl delete pod judged 2>/dev/null\n`);
    writeFileSync(join(cwd, 'evil.sh'), `echo unjudged >> ${marker}\nkubectl delete pod evil 2>/dev/null\n`);
    const s = await setUp('swap', {
      swap: [
        // A background command of the same run, waiting for its moment to rewrite x.sh.
        terminal('while [ ! -f go ]; do sleep 0.05; done; cp evil.sh x.sh; touch swapped', { background: true }),
        terminal('sh x.sh'),
      ],
    });
    const h = await start(s, 'swap', cwd);
    const first = await nextPending(h);
    expect(first.command).toContain('echo judged');
    expect(first.command).not.toContain('unjudged');
    // The person reads it; meanwhile the background command swaps the script; then the person approves.
    writeFileSync(join(cwd, 'go'), '');
    await until('the script to be swapped', () => existsSync(join(cwd, 'swapped')));
    await decide(h, { approvalId: first.approvalId, choice: 'once' });
    // What runs now is not what was approved: nothing runs, and the call asks again, showing the new text.
    const again = await askedOrRan(h, [first], marker, 0);
    expect(lines(marker)).toEqual([]);
    expect(again?.callId).toBe(first.callId);
    expect(again?.changed).toEqual(['x.sh']);
    expect(again?.command).toContain('echo unjudged');
    expect(first.scope?.covers).toBe(`this exact command in ${cwd}, while x.sh stays exactly as shown`);
    await decide(h, { approvalId: again!.approvalId, choice: 'deny', reason: 'not what I approved' });
    expect(((await h.result()) as AgentResult).status).toBe('completed');
    recordHistory(inject('temporalAddress'), h.workflowId, 'approval-rejudged');
    expect(lines(marker)).toEqual([]);
    expect(s.seen.get('swap')?.at(-1)).toContain('not what I approved');
  });

  it('a session approval of a script covers that content only: rewritten, the same command asks', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const script = (word: string): string => `echo ${word} >> ${marker}\nkubectl delete pod ${word} 2>/dev/null\n`;
    writeFileSync(join(cwd, 'x.sh'), script('first'));
    const s = await setUp('rewrite', {
      rewrite: [
        terminal('sh x.sh'),
        terminal('sh x.sh'),
        terminal(`cp y.sh x.sh`), // ordinary: the model rewrites the script it was allowed to run
        terminal('sh x.sh'),
      ],
    });
    writeFileSync(join(cwd, 'y.sh'), script('rewritten'));
    const h = await start(s, 'rewrite', cwd);
    const first = await nextPending(h);
    const applied = await decide(h, { approvalId: first.approvalId, choice: 'session' });
    // The same command with the same script: covered. The same command after the script changed: asks.
    await until('the covered call', () => lines(marker).length >= 2);
    const again = await askedOrRan(h, [first], marker, 2);
    expect(lines(marker)).toEqual(['first', 'first']);
    expect(again?.command).toContain('echo rewritten');
    expect(applied).toMatchObject({ applies: 'session' });
    await decide(h, { approvalId: again!.approvalId, choice: 'deny' });
    await h.result();
    expect(lines(marker)).toEqual(['first', 'first']);
  });

  it('the end of a long command is in the pending approval, `tether approvals` and the CLI prompt; too long to show is refused', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const padded = `echo start${' '.repeat(4100)}; kubectl delete pod tail-end 2>/dev/null; echo TAIL >> ${marker}`;
    const huge = `kubectl delete pod huge 2>/dev/null; echo ${'x'.repeat(100_050)} > /dev/null; echo HUGE >> ${marker}`;
    const many = `kubectl delete pod many 2>/dev/null\n${Array.from({ length: 300 }, (_, i) => `echo line-${i}`).join('\n')}\necho MANY >> ${marker}`;
    const s = await setUp('long', { long: [terminal(padded)], huge: [terminal(huge)], many: [terminal(many)] });
    const h = await start(s, 'long', cwd);
    const p = await nextPending(h);
    expect(p.command).toBe(padded);
    const tail = `echo start⟨4,100 spaces⟩; kubectl delete pod tail-end 2>/dev/null; echo TAIL >> ${marker}`;
    let listed = '';
    await until('the approval in tether approvals --json', async () =>
      (listed = (await runCli(['approvals', '--json'], { cwd, env: s.env })).stdout).includes(p.approvalId),
    );
    const mine = (JSON.parse(listed) as { approvalId: string; command: string; collapsed?: boolean }[]).find(
      (a) => a.approvalId === p.approvalId,
    );
    expect(mine).toMatchObject({ command: tail, collapsed: true });
    expect((await runCli(['approvals'], { cwd, env: s.env })).stdout).toContain(`  $ ${tail}`);
    // The CLI prompt (`tether attach --prompt`, answers from a pipe) shows the tail before anyone chooses.
    const attach = spawn('node', [cliPath, 'attach', h.workflowId, '--prompt'], {
      env: { ...process.env, ...s.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let prompt = '';
    attach.stderr.on('data', (c: Buffer) => (prompt += c.toString()));
    await until('the prompt', () => prompt.includes('(Enter denies'));
    expect(prompt).toContain(`  $ ${tail}`);
    expect(prompt).toContain(`    session also this exact command in ${cwd}, for the rest of this run`);
    attach.stdin.end('d too long\n');
    await new Promise((r) => attach.on('exit', r));
    expect(((await h.result()) as AgentResult).status).toBe('completed');
    expect(lines(marker)).toEqual([]);

    // 302 lines: the prompt shows the start and the end, counts the middle, and shows all of it on `v`.
    const m = await start(s, 'many', cwd);
    await nextPending(m);
    const viewer = spawn('node', [cliPath, 'attach', m.workflowId, '--prompt'], {
      env: { ...process.env, ...s.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let shown = '';
    viewer.stderr.on('data', (c: Buffer) => (shown += c.toString()));
    await until('the prompt', () => shown.includes('(Enter denies'));
    expect(shown).toContain(`  > echo MANY >> ${marker}`);
    expect(shown).toMatch(/⟨263 more lines, [\d,]+ characters, not shown here: answer v to show all⟩/);
    expect(shown).toContain('or [v]iew all 302 lines');
    expect(shown).not.toContain('echo line-150\n');
    viewer.stdin.write('v\n');
    await until('all of it', () => shown.includes('  > echo line-150\n'));
    viewer.stdin.end('d\n');
    await new Promise((r) => viewer.on('exit', r));
    await m.result();
    expect(lines(marker)).toEqual([]);

    // Past what a person can be shown: refused, and the model is told; no approval is ever pending.
    const big = await start(s, 'huge', cwd);
    expect(((await big.result()) as AgentResult).status).toBe('completed');
    expect((await state(big)).approvals.decided).toEqual([]);
    expect(JSON.parse(s.seen.get('huge')![0]!)).toMatchObject({
      error: expect.stringMatching(/more than the 100000 a person can be shown, so it was not run/),
    });
    expect(lines(marker)).toEqual([]);
  });

  it('a secret-looking assignment keeps the command after it visible; --exact shows the exact text', async () => {
    const cwd = project();
    const command = 'ls; DEPLOY_TOKEN=abcdef;date>>f; kubectl delete pod s 2>/dev/null';
    const s = await setUp('secret', { secret: [terminal(command)] });
    const h = await start(s, 'secret', cwd);
    const p = await nextPending(h);
    let listed = '';
    await until('the approval in tether approvals --json', async () =>
      (listed = (await runCli(['approvals', '--json'], { cwd, env: s.env })).stdout).includes(p.approvalId),
    );
    const mine = (JSON.parse(listed) as { approvalId: string; command: string }[]).find(
      (a) => a.approvalId === p.approvalId,
    )!;
    expect(mine.command).toBe('ls; DEPLOY_TOKEN=⟨redacted: 6 characters⟩;date>>f; kubectl delete pod s 2>/dev/null');
    const human = (await runCli(['approvals'], { cwd, env: s.env })).stdout;
    expect(human).toContain(';date>>f;');
    expect(human).toContain('tether approvals --exact shows the exact text');
    const exact = (await runCli(['approvals', '--exact'], { cwd, env: s.env })).stdout;
    expect(exact).toContain(`  $ ${command}`);
    await decide(h, { approvalId: p.approvalId, choice: 'deny' });
    await h.result();
    expect(existsSync(join(cwd, 'f'))).toBe(false);
  });
});

describe('approvals cover what the person saw', () => {
  it('a session approval of `git push --force R feature-x` leaves main, --mirror and --delete asking', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const push = (args: string, word: string): string => `git push ${args} 2>/dev/null; echo ${word} >> ${marker}`;
    const s = await setUp('push', {
      push: [
        terminal(push('--force R feature-x', 'feature-x')),
        terminal(push('--force R feature-x', 'feature-x')), // the same: covered
        terminal(push('--force \'R\' "feature-x"', 'feature-x')), // the same words, quoted otherwise: covered
        terminal(push('--force R main', 'main')),
        terminal(push('--mirror R', 'mirror')),
        terminal(push('--delete R main', 'delete')),
      ],
    });
    const h = await start(s, 'push', cwd);
    const first = await nextPending(h);
    await decide(h, { approvalId: first.approvalId, choice: 'session' });
    const known = [first];
    await until('the covered calls', () => lines(marker).length >= 3);
    for (const word of ['main', 'mirror', 'delete']) {
      const p = await askedOrRan(h, known, marker, 3);
      expect(lines(marker)).toEqual(['feature-x', 'feature-x', 'feature-x']);
      known.push(p!);
      expect(p!.command).toContain(`echo ${word}`);
      await decide(h, { approvalId: p!.approvalId, choice: 'deny' });
    }
    await h.result();
    recordHistory(inject('temporalAddress'), h.workflowId, 'approval-session-scope');
    expect(lines(marker)).toEqual(['feature-x', 'feature-x', 'feature-x']);
  });

  it('a session approval covers the directory the command really ran in: after a cd, the same words ask', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    mkdirSync(join(cwd, 'sub'));
    const here = `kubectl delete pod z 2>/dev/null; pwd >> ${marker}`;
    const s = await setUp('where', {
      where: [terminal('cd sub'), terminal(here), terminal(here), terminal('cd ..'), terminal(here)],
    });
    const h = await start(s, 'where', cwd);
    const first = await nextPending(h);
    expect(first.cwd).toBe(join(cwd, 'sub'));
    expect(first.scope?.covers).toBe(`this exact command in ${join(cwd, 'sub')}`);
    await decide(h, { approvalId: first.approvalId, choice: 'session' });
    await until('the covered call', () => lines(marker).length >= 2);
    const elsewhere = await askedOrRan(h, [first], marker, 2);
    expect(lines(marker)).toEqual([join(cwd, 'sub'), join(cwd, 'sub')]);
    expect(elsewhere?.cwd).toBe(cwd);
    await decide(h, { approvalId: elsewhere!.approvalId, choice: 'deny' });
    await h.result();
    expect(lines(marker)).toHaveLength(2);
  });

  it('a computed command is approved once only, whatever was chosen: the next computed command asks', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    writeFileSync(join(cwd, 'cmd.txt'), 'true');
    const s = await setUp('computed', {
      computed: [
        terminal(`C=ls; $C >/dev/null; echo c1 >> ${marker}`),
        terminal(`X=$(cat cmd.txt); $X; echo c2 >> ${marker}`),
        terminal(`C=ls; $C >/dev/null; echo c1 >> ${marker}`),
      ],
    });
    const configFile = join(s.env.TETHER_HOME!, 'config.yaml');
    const h = await start(s, 'computed', cwd);
    const first = await nextPending(h);
    // "always" here gives once: nothing is remembered for the run, nothing is written to config.yaml.
    const applied = await decide(h, { approvalId: first.approvalId, choice: 'always' });
    await until('the first call', () => lines(marker).length >= 1);
    const second = await askedOrRan(h, [first], marker, 1);
    expect(lines(marker)).toEqual(['c1']);
    expect(second?.command).toContain('$(cat cmd.txt)');
    expect(applied).toMatchObject({ applies: 'once' });
    expect(first.scope?.onceOnly).toMatch(/\[dynamic-command\] means tether could not read what will run/);
    await decide(h, { approvalId: second!.approvalId, choice: 'session' });
    await until('the second call', () => lines(marker).length >= 2);
    const third = await askedOrRan(h, [first, second!], marker, 2);
    expect(lines(marker)).toEqual(['c1', 'c2']);
    expect(third?.command).toBe(first.command);
    await decide(h, { approvalId: third!.approvalId, choice: 'deny' });
    await h.result();
    expect(lines(marker)).toEqual(['c1', 'c2']);
    const s2 = await state(h);
    expect(s2.approvals.sessionScopes ?? []).toEqual([]);
    expect(s2.approvals.decided.map((d) => [d.choice, d.asked])).toEqual([
      ['once', 'always'],
      ['once', 'session'],
      ['deny', undefined],
    ]);
    expect(readFileSync(configFile, 'utf8')).toBe('');
  });

  it('a config.yaml written during a run changes nothing in it; a match-all allowlist stops a worker at start', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const b = `kubectl delete pod b 2>/dev/null; echo b >> ${marker}`;
    const s = await setUp('policy', {
      policy: [terminal(`kubectl delete pod a 2>/dev/null; echo a >> ${marker}`), terminal(b)],
    });
    const configFile = join(s.env.TETHER_HOME!, 'config.yaml');
    const h = await start(s, 'policy', cwd);
    const first = await nextPending(h);
    // What a run that could write config.yaml would add: the rule, the exact next command, and approvals off.
    writeFileSync(configFile, `approvals:\n  mode: 'off'\ncommand_allowlist: [kubectl-delete, ${JSON.stringify(b)}]\n`);
    await decide(h, { approvalId: first.approvalId, choice: 'once' });
    await until('the first call', () => lines(marker).length >= 1);
    const second = await askedOrRan(h, [first], marker, 1);
    expect(lines(marker)).toEqual(['a']);
    expect(second?.command).toBe(b);
    await decide(h, { approvalId: second!.approvalId, choice: 'deny' });
    await h.result();
    expect(lines(marker)).toEqual(['a']);

    for (const entry of ['*', '.*', 'dynamic-command']) {
      writeFileSync(configFile, `command_allowlist: [${JSON.stringify(entry)}]\n`);
      const refused = await startWorkerProcess(s.env).then(
        async (w) => {
          await w.kill();
          return 'started';
        },
        (err: Error) => err.message,
      );
      expect(refused).toContain(`command_allowlist.0: ${JSON.stringify(entry)}`);
      expect(refused).toMatch(/matches every command|could not read what runs/);
      expect(refused).not.toMatch(/\n\s+at /); // one line, no stack trace
    }
  }, 240_000); // three worker start-ups besides the run: a limit for a busy machine, not a speed assertion

  it('a cancelled run no longer lists its pending approval', async () => {
    const cwd = project();
    const s = await setUp('cancel', { cancel: [terminal('kubectl delete pod c 2>/dev/null')] });
    const h = await start(s, 'cancel', cwd);
    const p = await nextPending(h);
    const listed = async (): Promise<boolean> =>
      (await runCli(['approvals', '--json'], { cwd, env: s.env })).stdout.includes(p.approvalId);
    await until('the approval in the listing', listed);
    await h.cancel();
    await expect(h.result()).rejects.toThrow();
    await until('the approval gone from the listing', async () => !(await listed()));
    const attrs = (await h.describe()).typedSearchAttributes;
    expect(attrs.getAll().find((a) => a.key.name === 'TetherPendingApprovals')).toBeUndefined();
  });
});

describe('one more look at the allowlist: what `always` writes', () => {
  it('is this exact command in this directory, and parses back as the configuration reads it', async () => {
    const cwd = project();
    const marker = join(cwd, 'ran.txt');
    const command = `kubectl delete pod keep 2>/dev/null; echo keep >> ${marker}`;
    const s = await setUp('always', { always: [terminal(command)] });
    const h = await start(s, 'always', cwd);
    const p = await nextPending(h);
    await decide(h, { approvalId: p.approvalId, choice: 'always' });
    await h.result();
    // Not the rule (kubectl-delete would allow every kubectl delete, anywhere).
    const written = parse(readFileSync(join(s.env.TETHER_HOME!, 'config.yaml'), 'utf8')) as unknown;
    expect(written).toEqual({ command_allowlist: [{ command, cwd }] });
    expect(p.scope?.always).toEqual({ command, cwd });
    expect(lines(marker)).toEqual(['keep']);
  });
});
