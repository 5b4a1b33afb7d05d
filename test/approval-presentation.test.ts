// How an approval reads, through the real CLI, a `tether worker` process and the scripted model: a plain
// `git push --force` in a repository with an ordinary git configuration shows the command alone in its box, the files
// the gate read in a folded "what it reads" section, no character warning and no escaped tab; and a secret carried
// through a variable (`API_TOKEN=…; git push "https://bot:$API_TOKEN@…"`) is absent from every shared view — the
// listing, its JSON, the signed gateway listing, the run's memo, `tether list`, the lines `tether run` prints — even
// where a finding expands it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { signListing, TIMESTAMP_HEADER } from '../src/cli/gateway-listing.js';
import { SIGNATURE_HEADER } from '../src/approval/signature.js';
import { cliPath, runCli, until } from './support/cli.js';
import { startCli, type CliProcess } from './support/cli-process.js';
import { startScriptedModel, type ChatRequest, type ScriptedReply } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();
const runs: CliProcess[] = [];
afterAll(async () => {
  for (const r of runs) await r.kill();
});

const SECRET = 's3cr3tV4lueXyZ0123456789';
const COMMANDS: Record<string, string> = {
  push: 'git push --force origin main',
  token: `API_TOKEN=${SECRET}; git push --force "https://bot:$API_TOKEN@example.com/o/r.git" main`,
  password: `PASSWORD=${SECRET}; mysql -p"$PASSWORD" -e "drop database shop"`,
  export: `export GITHUB_TOKEN=${SECRET}; git push --force origin main`,
};

const taskOf = (req: ChatRequest): string => req.messages.find((m) => m.role === 'user')?.content ?? '';

/** A repository as `git init` leaves it (its config indented with tabs), and a home with an ordinary ~/.gitconfig. */
function project(): { cwd: string; home: string } {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-presentation-')));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd });
  execFileSync('git', ['remote', 'add', 'origin', 'https://example.com/o/r.git'], { cwd });
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'tether-presentation-user-')));
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = A Person\n\temail = a@example.com\n[pull]\n\trebase = true\n',
  );
  return { cwd, home };
}

async function setUp(config = ''): Promise<{ env: Record<string, string>; cwd: string }> {
  const model = await startScriptedModel([
    (req): ScriptedReply => {
      const command = COMMANDS[taskOf(req)];
      return command ? { toolCalls: [{ name: 'terminal', arguments: { command } }] } : { content: 'done' };
    },
    { content: 'done' },
  ]);
  models.push(model);
  const { cwd, home } = project();
  const w = workerEnv(inject('temporalAddress'), model.url, 'presentation');
  const env: Record<string, string> = { ...w.env, HOME: home };
  writeFileSync(join(env.TETHER_HOME!, 'config.yaml'), config);
  await workers.start(env);
  return { env, cwd };
}

/** `tether run` without a terminal, until it says it waits for a person; its approval id and the line. */
async function waitingRun(
  task: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ run: CliProcess; workflowId: string; approvalId: string; line: string }> {
  const run = startCli(['run', '--no-worker', task], { cwd, env });
  runs.push(run);
  const m = await run.waitFor(/⏸ waiting for a person: approval (ap-[0-9a-f]+) .*\n/, 'the waiting line', 120_000);
  const workflowId = /tether · (tether-[0-9a-z-]+) ·/.exec(run.output())![1]!;
  return { run, workflowId, approvalId: m[1]!, line: m[0] };
}

describe('a git push --force with an ordinary git configuration', () => {
  it('shows the command alone, what the gate read folded apart, no warning and no escaped tab', async () => {
    const { env, cwd } = await setUp();
    const { run, workflowId, approvalId, line } = await waitingRun('push', env, cwd);
    expect(line).toContain(`of terminal: git push --force origin main [git-force-push]`);
    expect(line).toContain(`approve with: tether approve ${workflowId} ${approvalId}`);

    const listing = await runCli(['approvals'], { cwd, env });
    expect(listing.code).toBe(0);
    const mine = listing.stdout.split('\n\n').find((b) => b.includes(approvalId))!;
    expect(mine).toContain('\n  $ git push --force origin main\n');
    expect(mine).toMatch(
      /\n {2}what it reads \(to judge it\): .*config \(\d+ lines?\).* — tether approvals --exact shows them\n/,
    );
    expect(mine).not.toContain('\\t');
    expect(mine).not.toMatch(/look-alike|invisible/);
    // What session covers (the files read, listed) is said once, not again under always.
    const always = mine.split('\n').find((l) => l.trimStart().startsWith('always'))!;
    const session = mine.split('\n').find((l) => l.trimStart().startsWith('session'))!;
    const listed = /while (.+) stay exactly as shown/.exec(session)![1]!;
    expect(listed).toContain('.git/config');
    expect(always).not.toContain(listed);
    expect(always).toContain('the same as session (it runs the files session names, whose content');

    const exact = await runCli(['approvals', '--exact'], { cwd, env });
    const whole = exact.stdout.split('\n\n').find((b) => b.includes(approvalId))!;
    expect(whole).toContain('\n  $ git push --force origin main\n');
    // The files read, whole, their tabs as tabs: the command box above holds none of it.
    expect(whole).toMatch(/\n {4}│ \t/);
    expect(whole).not.toContain('\\t');
    expect(whole).not.toMatch(/look-alike|invisible/);
    expect(whole.slice(0, whole.indexOf('what it reads'))).not.toContain('[remote "origin"]');

    expect((await runCli(['deny', workflowId, approvalId], { cwd, env })).code).toBe(0);
    await run.waitFor(new RegExp(`▶ going on: approval ${approvalId} denied by cli`), 'the line saying it goes on');
    expect((await run.exited()).code).toBe(0);
  }, 300_000);
});

describe('a secret carried through a variable', () => {
  it.each(['token', 'password', 'export'])(
    '%s: its value is in no shared view, nor in the memo, nor in what tether run prints',
    async (task) => {
      const secret = 'a-test-secret-of-some-length';
      const { env, cwd } = await setUp(`approvals:\n  secret: ${secret}\n`);
      const { run, workflowId, approvalId } = await waitingRun(task, env, cwd);
      const absent = (where: string, text: string): void =>
        expect(text.includes(SECRET), `${where} shows the secret: ${text.slice(0, 2000)}`).toBe(false);

      const listing = await runCli(['approvals'], { cwd, env });
      expect(listing.stdout).toContain(approvalId);
      expect(listing.stdout).toContain('⟨redacted: 24 characters⟩');
      absent('tether approvals', listing.stdout);
      absent('tether approvals --json', (await runCli(['approvals', '--json'], { cwd, env })).stdout);
      absent('tether list --json', (await runCli(['list', '--json'], { cwd, env })).stdout);
      const memo = (await client().workflow.getHandle(workflowId).describe()).memo;
      expect(JSON.stringify(memo)).toContain(approvalId);
      absent('the memo', JSON.stringify(memo));

      // The gateway's signed listing, as a chat bot would read it.
      const gateway = spawn('node', [cliPath, 'serve', '--port', '0'], {
        cwd,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        let out = '';
        gateway.stdout.on('data', (c: Buffer) => (out += c.toString()));
        gateway.stderr.on('data', (c: Buffer) => (out += c.toString()));
        await until('the gateway', () => /listening on (http:\/\/\S+)/.test(out), 120_000);
        const base = /listening on (http:\/\/\S+)/.exec(out)![1]!;
        const timestamp = String(Date.now());
        const res = await fetch(`${base}/approvals`, {
          headers: { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signListing(secret, timestamp) },
        });
        const body = await res.text();
        expect(res.status).toBe(200);
        expect(body).toContain(approvalId);
        absent('GET /approvals', body);
      } finally {
        gateway.kill('SIGKILL');
      }

      expect((await runCli(['deny', workflowId, approvalId], { cwd, env })).code).toBe(0);
      expect((await run.exited()).code).toBe(0);
      absent('tether run', run.output());
      expect(run.output()).toContain('⟨redacted: 24 characters⟩');
    },
    300_000,
  );
});
