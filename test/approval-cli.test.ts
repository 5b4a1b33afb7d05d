// The approval commands as a user runs them: `approval check` (one command, JSON lines), `approvals`, `approve`,
// `deny`, prompting in `tether run`, and the signed-decision gateway `tether serve`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signBody } from '../src/approval/signature.js';
import { DANGEROUS, ORDINARY } from './fixtures/detect-table.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { cliPath, runCli, until } from './support/cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

let connection: Connection;
let client: Client;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await connection.close();
});

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

describe('tether approval check', () => {
  it('prints one verdict per JSON line, in order, and reports bad lines by number', async () => {
    const commands = [...DANGEROUS.map((d) => d[0]), ...ORDINARY];
    const many = Array.from({ length: 500 }, (_, i) => commands[i % commands.length]!);
    const input = [...many.map((c) => JSON.stringify(c)), 'not json', '{"command": "ls"}'].join('\n');
    const child = spawn('node', [cliPath, 'approval', 'check', '--jsonl', '--cwd', '/work/proj'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stdin.end(input);
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    const rows = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(502);
    rows.slice(0, 500).forEach((row, i) => {
      expect(row.command).toBe(many[i]);
      expect(Object.keys(row).slice(0, 5)).toEqual(['command', 'dangerous', 'tier', 'findings', 'decision']);
      expect(row.decision).toBe(row.tier === 'hardline' ? 'refuse' : row.dangerous ? 'ask' : 'ok');
    });
    const byCommand = new Map(DANGEROUS.map(([c, tier]) => [c, tier]));
    for (const row of rows.slice(0, 500)) expect(row.tier).toBe(byCommand.get(row.command as string) ?? null);
    expect(rows[500]).toMatchObject({ line: 501, error: expect.stringMatching(/^line 501 is not JSON/) });
    expect(rows[501]).toMatchObject({ line: 502, error: 'line 502 is not a JSON string (got object)' });
  });

  it('asks (never ok) for a computed command and says why; judges stdin, programs and scripts by path', async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-check-')));
    const computed = await runCli(['approval', 'check', '--json', 'X="ls -la"; $X'], { cwd });
    expect(computed.code).toBe(3);
    expect(JSON.parse(computed.stdout)).toMatchObject({
      decision: 'ask',
      reason: expect.stringContaining('computed command name: $X'),
      unknown: [expect.stringContaining('computed command name: $X (= ls -la)')],
    });
    const stdin = await runCli(['approval', 'check', '--json', '--stdin', 'kill -9 -1', 'bash'], { cwd });
    expect(JSON.parse(stdin.stdout)).toMatchObject({ decision: 'refuse', findings: [{ rule: 'kill-all' }] });
    const program = await runCli(
      ['approval', 'check', '--json', '--language', 'python', 'import subprocess; subprocess.run(input(), shell=True)'],
      { cwd },
    );
    expect(JSON.parse(program.stdout)).toMatchObject({
      decision: 'ask',
      unknown: [expect.stringContaining('subprocess.run(input(), shell=True)')],
    });
    writeFileSync(join(cwd, 'x.sh'), 'rm -rf ~\n');
    const script = await runCli(['approval', 'check', '--json', 'sh x.sh'], { cwd });
    expect(JSON.parse(script.stdout)).toMatchObject({ decision: 'refuse', findings: [{ rule: 'delete-home' }] });
    const bad = await runCli(['approval', 'check', '--language', 'ruby', 'x'], { cwd });
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--language must be python or javascript') });
  }, 240_000); // five CLI start-ups: a limit for a busy machine, not a speed assertion

  it('judges one command, with exit code 3 when dangerous', async () => {
    const cwd = realpathSync(tmpdir());
    const bad = await runCli(['approval', 'check', '--json', '--', 'sudo', 'rm', '-rf', '/'], { cwd });
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      command: 'sudo rm -rf /',
      dangerous: true,
      tier: 'hardline',
      findings: [{ rule: 'delete-root' }],
    });
    const ok = await runCli(['approval', 'check', 'ls -la'], { cwd });
    expect(ok).toMatchObject({ code: 0, stdout: 'ok: nothing dangerous found\n' });
    const rules = await runCli(['approval', 'rules', '--json'], { cwd });
    expect((JSON.parse(rules.stdout) as { id: string }[]).map((r) => r.id)).toContain('kubectl-delete');
  });
});

describe('deciding from the command line', () => {
  let model: ScriptedModel;
  let env: Record<string, string>;
  let cwd: string;
  let marker: string;
  let taskQueue: string;
  let home: string;

  beforeAll(async () => {
    cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-approval-cli-')));
    marker = join(cwd, 'ran.txt');
    home = mkdtempSync(join(tmpdir(), 'tether-approval-cli-home-'));
    const command = (word: string): string => `kubectl delete pod ${word} 2>/dev/null; echo ${word} >> ${marker}`;
    model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: command('first') } }] },
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: `terraform destroy 2>/dev/null; echo second >> ${marker}` } },
        ],
      },
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: `git push --force 2>/dev/null; echo third >> ${marker}` } },
        ],
      },
      { content: 'all decided' },
    ]);
    taskQueue = `approval-cli-${randomUUID()}`;
    env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TETHER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'k',
      TETHER_HOME: home,
    };
    cleanups.push(() => model.close());
  });

  async function waitPending(handle: WorkflowHandle, count: number): Promise<AgentState['pendingApprovals'][number]> {
    let s: AgentState | undefined;
    await until(
      'a pending approval',
      async () =>
        (s = await handle.query<AgentState>('state')).approvals.decided.length + s.pendingApprovals.length >= count &&
        s.pendingApprovals.length > 0,
      30_000,
    );
    return s!.pendingApprovals[0]!;
  }

  it('lists pending approvals, approves, denies, and answers the prompt of tether run', async () => {
    const worker: WorkerProcess = await startWorkerProcess(env);
    cleanups.push(() => worker.kill());
    // `tether run --prompt` reads answers from its standard input (a pipe here, a terminal for a person).
    const run: ChildProcess = spawn(
      'node',
      [cliPath, 'run', '--model', 'scripted', '--cwd', cwd, '--prompt', '--json', 'decide things'],
      { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    cleanups.push(async () => run.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    run.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    run.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => run.on('exit', r));
    await until('the run to start', () => /tether · (tether-\S+)/.test(stderr));
    const workflowId = /tether · (tether-\S+)/.exec(stderr)![1]!;
    const handle = client.workflow.getHandle(workflowId);

    // 1. Answered at the prompt: "s" approves the rule for the session.
    await until('the prompt', () => stderr.includes('[o]nce / [s]ession / [a]lways / [d]eny'));
    expect(stderr).toContain('[kubectl-delete]');
    run.stdin!.write('what?\n');
    await until('the prompt to ask again', () => stderr.includes('not a choice: "what?"'));
    run.stdin!.write('s\n');
    await until('the first command', () => lines(marker).includes('first'));

    // 2. Listed by `tether approvals`, approved by `tether approve` from another terminal.
    const second = await waitPending(handle, 2);
    // The listing reads visibility, which shows a new approval a moment after the run has it.
    let listed = await runCli(['approvals', '--json'], { cwd, env });
    await until('the approval in tether approvals', async () =>
      (listed = await runCli(['approvals', '--json'], { cwd, env })).stdout.includes(second.approvalId),
    );
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          workflowId,
          approvalId: second.approvalId,
          command: expect.stringContaining('terraform destroy'),
        }),
      ]),
    );
    const human = await runCli(['approvals'], { cwd, env });
    expect(human.stdout).toContain(`${workflowId} ${second.approvalId} · terminal`);
    expect(human.stdout).toContain('[terraform-destroy]');
    const unknown = await runCli(['approve', workflowId, 'ap-00000000'], { cwd, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/decision rejected: unknown approval id ap-00000000: it is not pending in this run/);
    expect(unknown.stderr).not.toContain(second.approvalId);
    const approved = await runCli(['approve', workflowId, second.approvalId], { cwd, env });
    expect(approved).toMatchObject({ code: 0, stdout: `approved (once): ${workflowId} ${second.approvalId}\n` });
    await until('the second command', () => lines(marker).includes('second'));

    // 3. Denied by `tether deny` with a reason; the prompt had asked too and is left unanswered.
    const third = await waitPending(handle, 3);
    const denied = await runCli(['deny', workflowId, third.approvalId, '--reason', 'never force-push'], { cwd, env });
    expect(denied).toMatchObject({ code: 0, stdout: `denied: ${workflowId} ${third.approvalId}\n` });
    run.stdin!.end();
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ workflowId, status: 'completed', answer: 'all decided' });
    expect(lines(marker)).toEqual(['first', 'second']);
    const final = (await handle.result()) as AgentResult;
    expect(final.status).toBe('completed');
    const decided = (await handle.query<AgentState>('state')).approvals.decided;
    expect(decided.map((d) => [d.choice, d.by])).toEqual([
      ['session', 'prompt'],
      ['once', 'cli'],
      ['deny', 'cli'],
    ]);
    expect(JSON.parse(model.requests.at(-1)!.messages.at(-1)!.content!).error).toMatch(
      /denied this command: never force-push/,
    );
  }, 120_000);
});

describe('tether serve', () => {
  it('accepts decisions signed with the shared secret and refuses unsigned, forged, stale, replayed and mismatched ones', async () => {
    const secret = 'a-test-secret-of-some-length';
    const home = mkdtempSync(join(tmpdir(), 'tether-gateway-home-'));
    writeFileSync(join(home, 'config.yaml'), `approvals:\n  secret: ${secret}\n`);
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-gateway-')));
    const marker = join(cwd, 'ran.txt');
    const model = await startScriptedModel([
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: `kubectl delete pod x 2>/dev/null; echo ran >> ${marker}` } },
        ],
      },
      { content: 'approved through the gateway' },
    ]);
    cleanups.push(() => model.close());
    const taskQueue = `gateway-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TETHER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'k',
      TETHER_HOME: home,
    };
    const worker = await startWorkerProcess(env);
    cleanups.push(() => worker.kill());
    const gateway = spawn('node', [cliPath, 'serve', '--port', '0'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => gateway.kill('SIGKILL'));
    let out = '';
    gateway.stdout.on('data', (c: Buffer) => (out += c.toString()));
    gateway.stderr.on('data', (c: Buffer) => (out += c.toString()));
    await until('the gateway', () => /listening on (http:\/\/\S+)/.test(out));
    const base = /listening on (http:\/\/\S+)/.exec(out)![1]!;

    const workflowId = `gw-${randomUUID()}`;
    const handle = await client.workflow.start('agentWorkflow', {
      taskQueue,
      workflowId,
      args: [{ task: 't', model: 'scripted', cwd }],
    });
    let s: AgentState | undefined;
    await until(
      'a pending approval',
      async () => (s = await handle.query<AgentState>('state')).pendingApprovals.length > 0,
      30_000,
    );
    const p = s!.pendingApprovals[0]!;

    const post = async (
      body: string,
      signature?: string,
    ): Promise<{ status: number; json: Record<string, unknown> }> => {
      const res = await fetch(`${base}/approvals/decision`, {
        method: 'POST',
        body,
        headers: signature ? { 'x-tether-signature': signature } : {},
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const decision = (extra: Record<string, unknown> = {}): string =>
      JSON.stringify({
        workflowId,
        approvalId: p.approvalId,
        choice: 'once',
        timestamp: Date.now(),
        nonce: randomUUID(),
        ...extra,
      });

    const unsigned = decision();
    expect(await post(unsigned)).toMatchObject({ status: 401, json: { error: expect.stringMatching(/^unsigned/) } });
    expect(await post(unsigned, signBody('the-wrong-secret-entirely', unsigned))).toMatchObject({
      status: 401,
      json: { error: expect.stringMatching(/^bad signature/) },
    });
    const tampered = decision();
    expect(await post(tampered.replace('"once"', '"always"'), signBody(secret, tampered))).toMatchObject({
      status: 401,
    });
    const stale = decision({ timestamp: Date.now() - 10 * 60_000 });
    expect(await post(stale, signBody(secret, stale))).toMatchObject({
      status: 401,
      json: { error: expect.stringMatching(/^stale/) },
    });
    // The same key twice: refused, whichever copy a reader would keep.
    const twice = decision().replace('"choice":"once"', '"choice":"once","choice":"always"');
    expect(twice).toContain('"choice":"always"');
    expect(await post(twice, signBody(secret, twice))).toMatchObject({
      status: 400,
      json: { error: expect.stringMatching(/the key "choice" appears twice/) },
    });
    const mismatched = decision({ argsDigest: '0000000000000000' });
    expect(await post(mismatched, signBody(secret, mismatched))).toMatchObject({
      status: 409,
      json: { error: expect.stringMatching(/different arguments/) },
    });
    expect(lines(marker)).toEqual([]);

    const good = decision({ callId: p.callId, argsDigest: p.argsDigest });
    expect(await post(good, signBody(secret, good))).toMatchObject({
      status: 200,
      json: { status: 'applied', approvalId: p.approvalId },
    });
    expect(await post(good, signBody(secret, good))).toMatchObject({
      status: 409,
      json: { error: expect.stringMatching(/^replayed/) },
    });
    expect(((await handle.result()) as AgentResult).answer).toBe('approved through the gateway');
    expect(lines(marker)).toEqual(['ran']);
    const again = decision();
    expect(await post(again, signBody(secret, again))).toMatchObject({
      status: 409,
      json: { error: expect.stringMatching(/is completed: nothing is pending/) },
    });
  }, 120_000);
});
