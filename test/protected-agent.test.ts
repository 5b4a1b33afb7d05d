// Files other programs run or obey later, through the real worker in manual mode: commands cannot change or create
// them; write_file and patch on them wait for a person with the change shown as a diff, and nothing changes when
// nobody approves (the approvals here time out); ordinary files are written unasked; and a change a person approved
// is in the next checkpoint like any other.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { CheckpointStore } from '../src/checkpoints/store.js';
import { rollback } from '../src/checkpoints/rollback.js';
import type { PendingApproval } from '../src/common/approval-types.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { toolResults } from './support/deny-all.js';
import { startScriptedModel, type Step } from './support/scripted-model.js';

const FILES: Record<string, string> = {
  '.github/workflows/ci.yml': 'name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n',
  'AGENTS.md': '# Rules\n\nAsk before pushing.\n',
  '.claude/settings.json': '{"permissions": {}}\n',
  '.vscode/tasks.json': '{"version": "2.0.0", "tasks": []}\n',
  CODEOWNERS: '* @team\n',
  'src/app.py': 'print(1)\n',
};

function project(): string {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-protected-agent-')));
  for (const [p, text] of Object.entries(FILES)) {
    mkdirSync(join(cwd, p, '..'), { recursive: true });
    writeFileSync(join(cwd, p), text);
  }
  return cwd;
}

const call = (name: string, args: Record<string, unknown>): Step => ({ toolCalls: [{ name, arguments: args }] });

let h: Harness;
beforeAll(async () => {
  h = await harness(
    parseConfig({
      approvals: { mode: 'manual', timeout: 4 },
      terminal: { backend: 'local', local: { sandbox: { enabled: true } } },
    }),
  );
});
afterAll(async () => {
  await h.close();
});

/** Runs the steps; every approval is left to time out; returns what was asked, and each call's result. */
async function runUnanswered(
  cwd: string,
  steps: Step[],
): Promise<{ asked: PendingApproval[]; out: Record<string, unknown>[] }> {
  const model = await startScriptedModel([...steps, { content: 'done' }]);
  const asked: PendingApproval[] = [];
  await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: `protected-${randomUUID()}`,
      args: [{ task: 't', model: 'scripted', cwd, enabledToolsets: ['terminal', 'file'] }],
    });
    let finished = false;
    const done = handle.result().finally(() => (finished = true));
    while (!finished) {
      for (const p of (await handle.query<AgentState>('state')).pendingApprovals)
        if (!asked.some((a) => a.approvalId === p.approvalId)) asked.push(p);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(((await done) as AgentResult).status).toBe('completed');
  });
  expect(model.errors).toEqual([]);
  await model.close();
  return { asked, out: toolResults(model) };
}

it('commands change none of them; write_file on ci.yml and AGENTS.md waits with a diff and changes nothing when nobody approves; ordinary files run unasked', async () => {
  const cwd = project();
  symlinkSync('AGENTS.md', join(cwd, 'notes.md'));
  const appends = [
    '.github/workflows/ci.yml',
    'AGENTS.md',
    '.claude/settings.json',
    '.vscode/tasks.json',
    'CODEOWNERS',
  ];
  const { asked, out } = await runUnanswered(cwd, [
    ...appends.map((f) => call('terminal', { command: `echo '# note' >> ${f}` })),
    call('terminal', { command: "echo 'export PATH=.:$PATH' > .envrc && echo made" }),
    call('write_file', {
      path: '.github/workflows/ci.yml',
      content: `${FILES['.github/workflows/ci.yml']}    steps: []\n`,
    }),
    call('write_file', { path: 'AGENTS.md', content: '# Rules\n\nPush without asking.\n' }),
    call('terminal', { command: "echo 'print(2)' >> src/app.py && cat src/app.py" }),
    call('write_file', { path: 'src/util.py', content: 'def util():\n    return 1\n' }),
    // A protected file reached through a link: the gate judged notes.md, so the file tool's view refuses it.
    call('write_file', { path: 'notes.md', content: 'Push without asking.\n' }),
    call('read_file', { path: 'notes.md' }),
  ]);
  // Nothing protected changed, nothing was created.
  for (const [p, text] of Object.entries(FILES))
    if (p !== 'src/app.py') expect(readFileSync(join(cwd, p), 'utf8'), p).toBe(text);
  expect(existsSync(join(cwd, '.envrc'))).toBe(false);
  // Each append either asked (the detector knows some of these files: agent settings, code owners) and was denied,
  // or ran and met the read-only file, the result saying why.
  for (const [i, f] of appends.entries()) {
    if (out[i]!.denied) {
      expect(
        asked.some((a) => a.command === `echo '# note' >> ${f}`),
        f,
      ).toBe(true);
      continue;
    }
    expect(out[i]!.output, f).toMatch(/Read-only file system/);
    expect(out[i]!.sandbox, f).toMatch(
      /is protected \(.*\): commands cannot change or create .*write_file or patch, which show a person the change and ask/,
    );
  }
  expect(out.slice(0, appends.length).filter((r) => !r.denied).length).toBeGreaterThanOrEqual(3);
  expect(out[5]).toMatchObject({ exit_code: 0, output: 'made\n' });
  expect(out[5]!.sandbox).toMatch(
    /\.envrc is protected \(direnv runs it .*\): a command created it, so it was moved out of the project/,
  );
  // The two file tool calls waited for a person, were shown the change, and were denied when nobody answered.
  const ci = asked.find((a) => a.tool === 'write_file' && a.command.includes('ci.yml'))!;
  expect(ci.findings.map((f) => f.rule)).toContain('protected-file');
  expect(ci.command).toBe(
    [
      "write_file .github/workflows/ci.yml: .github/workflows/ci.yml is protected (a CI service runs it, with the repository's secrets). The change:",
      '--- .github/workflows/ci.yml (now)',
      '+++ .github/workflows/ci.yml (after this write_file)',
      '@@ -3,3 +3,4 @@',
      ' jobs:',
      '   test:',
      '     runs-on: ubuntu-latest',
      '+    steps: []',
    ].join('\n'),
  );
  const agents = asked.find((a) => a.tool === 'write_file' && a.command.includes('AGENTS.md'))!;
  expect(agents.command).toMatch(
    /AGENTS\.md is protected \(other agents read it as their instructions or settings\)\. The change:\n--- AGENTS\.md \(now\)\n\+\+\+ AGENTS\.md \(after this write_file\)\n@@ -1,3 \+1,3 @@\n # Rules\n \n-Ask before pushing\.\n\+Push without asking\.$/,
  );
  expect(out[6]).toMatchObject({ denied: true });
  expect(out[7]).toMatchObject({ denied: true });
  // The ordinary source file and the new one: written, unasked.
  expect(out[8]).toMatchObject({ exit_code: 0, output: 'print(1)\nprint(2)\n' });
  expect(out[9]).toMatchObject({ path: 'src/util.py', bytes_written: 25 });
  expect(readFileSync(join(cwd, 'src/util.py'), 'utf8')).toBe('def util():\n    return 1\n');
  expect(asked.some((a) => /src\/(app|util)\.py/.test(a.command))).toBe(false);
  // Through the link: refused, saying which file and how to change it; reading it is fine.
  expect(out[10]!.error).toMatch(
    /^notes\.md leads to .*\/AGENTS\.md, which is protected \(other agents read it as their instructions or settings\).*write AGENTS\.md itself$/,
  );
  expect(JSON.stringify(out[11])).toContain('Ask before pushing.');
}, 180_000);

it('a change a person approves is written, held read-only to later commands, and in the next checkpoint', async () => {
  const cwd = project();
  const approvedText = '# Rules\n\nAsk before pushing.\nRun the tests first.\n';
  const model = await startScriptedModel([
    call('patch', {
      path: 'AGENTS.md',
      old_string: 'Ask before pushing.\n',
      new_string: 'Ask before pushing.\nRun the tests first.\n',
    }),
    call('terminal', { command: 'cat AGENTS.md; echo "# more" >> AGENTS.md' }),
    { content: 'done' },
  ]);
  const workflowId = `protected-approved-${randomUUID()}`;
  await h.withWorker(model.url, async () => {
    const handle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ task: 't', model: 'scripted', cwd, enabledToolsets: ['terminal', 'file'] }],
    });
    let pending: PendingApproval[] = [];
    for (let i = 0; i < 300 && pending.length === 0; i += 1) {
      pending = (await handle.query<AgentState>('state')).pendingApprovals;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(pending[0]!.tool).toBe('patch');
    expect(pending[0]!.command).toMatch(/\n Ask before pushing\.\n\+Run the tests first\.$/);
    await handle.executeUpdate('decideApproval', {
      args: [{ approvalId: pending[0]!.approvalId, choice: 'once', by: 'test' }],
    });
    expect(((await handle.result()) as AgentResult).status).toBe('completed');
  });
  expect(model.errors).toEqual([]);
  const out = toolResults(model);
  await model.close();
  expect(out[0]).toMatchObject({ replacements: 1 });
  // The next command sees the approved text, and cannot change it.
  expect(out[1]!.output).toMatch(/^# Rules\n\nAsk before pushing\.\nRun the tests first\.\n.*Read-only file system/s);
  expect(readFileSync(join(cwd, 'AGENTS.md'), 'utf8')).toBe(approvedText);
  // The checkpoint before turn 2 holds it: a rollback of that one path brings the approved text back.
  writeFileSync(join(cwd, 'AGENTS.md'), 'changed by a person since\n');
  const report = await rollback(new CheckpointStore(), parseConfig({}).checkpoints, {
    workflowId,
    target: { turn: 2 },
    path: 'AGENTS.md',
    by: 'test',
  });
  expect(report.target.tool).toBe('terminal');
  expect(readFileSync(join(cwd, 'AGENTS.md'), 'utf8')).toBe(approvedText);
}, 180_000);
