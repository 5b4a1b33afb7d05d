// The inbox's run view in real headless Chromium: each checkpoint next to the call it preceded, with what changed
// after it, and a restore button under the same rules as decisions (session, same origin, CSRF token); refused
// while the run is active. A real worker process, `tether serve` and the scripted model.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findBrowser } from '../src/browser/find-browser.js';
import type { AgentState } from '../src/common/types.js';
import { until } from './support/cli.js';
import { startCli, type CliProcess } from './support/cli-process.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client, workers } = workerProcessSuite();
const taskOf = (req: ChatRequest): string => req.messages.find((m) => m.role === 'user')?.content ?? '';

/** Turn 2's command per task: the first deletes the file, the second also asks for approval (and so stays running). */
const SECOND: Record<string, string> = {
  'delete it': 'rm keep.txt',
  'wait for a decision': 'rm keep.txt; kubectl delete pod web 2>/dev/null; true',
};

let model: ScriptedModel;
let serve: CliProcess;
let base: string;
let link: string;
let taskQueue: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function start(task: string): Promise<{ workflowId: string; cwd: string }> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-inbox-ckpt-')));
  const workflowId = `inbox-ckpt-${randomUUID().slice(0, 8)}`;
  await client().workflow.start('agentWorkflow', { taskQueue, workflowId, args: [{ task, model: 'scripted', cwd }] });
  return { workflowId, cwd };
}

async function openRun(workflowId: string): Promise<void> {
  // The sign-in link sets the session and then moves on to the inbox: that move ends before the next page opens.
  if ((await context.cookies(base)).length === 0) {
    await page.goto(link);
    await page.waitForURL(`${base}/inbox`);
  }
  await page.goto(`${base}/inbox/runs/${encodeURIComponent(workflowId)}`);
  await page.waitForSelector('body[data-ready="true"]');
}

beforeAll(async () => {
  const executablePath = findBrowser(undefined);
  if (!executablePath) throw new Error("no Chromium: install Debian's chromium");
  model = await startScriptedModel([
    { toolCalls: [{ name: 'write_file', arguments: { path: 'keep.txt', content: 'kept\n' } }] },
    (req) => ({ toolCalls: [{ name: 'terminal', arguments: { command: SECOND[taskOf(req)] ?? 'true' } }] }),
    { content: 'done' },
  ]);
  const w = workerEnv(inject('temporalAddress'), model.url, 'inbox-ckpt');
  taskQueue = w.taskQueue;
  await workers.start(w.env);
  serve = startCli(['serve', '--port', '0'], { env: w.env });
  link = (await serve.waitFor(/^inbox: (http:\/\/\S+)$/m, 'the inbox link'))[1]!;
  base = new URL(link).origin;
  browser = await chromium.launch({ executablePath, headless: true, chromiumSandbox: process.getuid?.() !== 0 });
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await serve?.kill();
  await model?.close();
});

describe('checkpoints in the inbox (real Chromium, real worker, scripted model)', () => {
  it('shows each checkpoint next to its call with what changed after it, and restores one', async () => {
    const { workflowId, cwd } = await start('delete it');
    await client().workflow.getHandle(workflowId).result();
    expect(existsSync(join(cwd, 'keep.txt'))).toBe(false);
    await openRun(workflowId);
    // Turn 2's checkpoint comes right after the model's call of turn 2 (the terminal command that deleted the file).
    const item = page.locator('.checkpoint[data-turn="2"]');
    expect(await item.locator('xpath=preceding-sibling::li[1]').getAttribute('data-role')).toBe('assistant');
    expect(await item.locator('.meta').textContent()).toContain('before turn 2 · terminal');
    expect(await item.locator('[data-changed-after]').textContent()).toBe(
      'since then: 0 added, 0 changed, 1 deleted (keep.txt)',
    );
    expect(await page.locator('.checkpoint[data-turn="1"] [data-changed-after]').textContent()).toMatch(
      /before the next checkpoint: 1 added/,
    );
    // Refused without the page's CSRF token, from another origin, without a session: nothing is restored.
    const id = (await item.getAttribute('data-checkpoint-id'))!;
    const session = (await context.cookies(base))[0]!;
    const cookie = `${session.name}=${session.value}`;
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content'))!;
    const post = (headers: Record<string, string>): Promise<Response> =>
      fetch(`${base}/inbox/api/restore`, {
        method: 'POST',
        body: JSON.stringify({ workflowId, id }),
        headers: { 'content-type': 'application/json', ...headers },
      });
    expect((await post({ cookie, origin: base })).status).toBe(403);
    expect((await post({ cookie, origin: 'http://evil.example', 'x-csrf-token': csrf })).status).toBe(403);
    expect((await post({ origin: base, 'x-csrf-token': csrf })).status).toBe(401);
    expect(existsSync(join(cwd, 'keep.txt'))).toBe(false);

    // The button asks once more, then restores; the page says how to undo it and lists the rollback's checkpoint.
    expect(await item.locator('.confirm').isVisible()).toBe(false);
    await item.locator('[data-restore]').click();
    await item.locator('[data-confirm-restore]').click();
    await until('the restore', () => existsSync(join(cwd, 'keep.txt')));
    expect(readFileSync(join(cwd, 'keep.txt'), 'utf8')).toBe('kept\n');
    await page
      .locator('#status', { hasText: /Restored to checkpoint .*: 1 change\(s\); undo with checkpoint/ })
      .waitFor();
    await page.locator('.checkpoint.rollback').waitFor();
    expect(await page.locator('.checkpoint.rollback .meta').textContent()).toContain(`rollback to ${id.slice(0, 12)}`);
  }, 240_000);

  it('refuses to restore while the run is active, and says why', async () => {
    const { workflowId, cwd } = await start('wait for a decision');
    const handle = client().workflow.getHandle(workflowId);
    await until('a pending approval', async () => {
      const s = await handle.query<AgentState>('state').catch(() => undefined);
      return (s?.pendingApprovals.length ?? 0) > 0;
    });
    await openRun(workflowId);
    const item = page.locator('.checkpoint[data-turn="2"]');
    expect(await item.locator('[data-restore]').isDisabled()).toBe(true);
    // What the button would send, from the page itself (its cookie, Origin and CSRF token).
    const id = (await item.getAttribute('data-checkpoint-id'))!;
    const [status, error] = (await page.evaluate(
      `fetch('/inbox/api/restore', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': document.querySelector('meta[name="csrf-token"]').content }, body: ${JSON.stringify(JSON.stringify({ workflowId, id }))} }).then(async (r) => [r.status, (await r.json()).error])`,
    )) as [number, string];
    expect(status).toBe(409);
    expect(error).toMatch(/is still running .*Cancel it first/);
    expect(existsSync(join(cwd, 'keep.txt'))).toBe(true); // the pending call has not run: nothing was restored either
    await handle.terminate('test over');
  }, 240_000);
});
