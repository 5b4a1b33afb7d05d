// The approval inbox of `tether serve` in real headless Chromium (Debian's chromium through playwright-core), with
// a real worker process, the scripted model and the dev server: log in with the printed link, decide, deny with a
// reason, and what is refused (no session, a forged cookie, another origin, no CSRF token) decides nothing.
// TETHER_SCREENSHOTS=1 (npm run screenshots:inbox) also writes the inbox and a run's transcript to docs/images/.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { visibleText } from '../src/approval/visible-text.js';
import { findBrowser } from '../src/browser/find-browser.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import { until } from './support/cli.js';
import { startCli, type CliProcess } from './support/cli-process.js';
import { startPageServer, type PageServer } from './support/page-server.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel } from './support/scripted-model.js';
import { workerEnv, workerProcessSuite, type WorkerProcess } from './support/worker-process.js';

const { client, workers } = workerProcessSuite();
// Until listPendingApprovals reads visibility, it asks every running run in turn (3 s for one no worker answers):
// on a dev server shared with other test files the listing can take a while.
const LISTING_MS = 120_000;
const SHOTS = process.env.TETHER_SCREENSHOTS === '1';
const imagesDir = fileURLToPath(new URL('../docs/images/', import.meta.url));

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-inbox-')));
const marker = join(cwd, 'ran.txt');
// Text a browser must show as text: a script element and quotes inside the command.
const XSS = `<script>window.__xss = 1</script>"><img src=x onerror="window.__xss = 2">`;
const COMMANDS: Record<string, string> = {
  'approve once': `kubectl delete pod web-1 2>/dev/null; echo ran >> ${marker}`,
  // A terminal escape and a bidi override: shown as \x1b and \u202e, never drawn.
  'deny with a reason': `kubectl delete pod '${XSS}' 2>/dev/null; echo "\x1b[2Knever\u202e" >> ${marker}.deny`,
  'stay pending': `kubectl delete pod idle 2>/dev/null; echo pending >> ${marker}.pending`,
  'decide while no worker runs': `kubectl delete pod later 2>/dev/null; echo queued >> ${marker}.queued`,
  // What a person must see to decide (issue 37): the tail after padding, blank lines, code after a secret, the rest
  // of a long command, and a computed command that can be approved once only.
  'padded tail': `echo start${' '.repeat(4100)}; kubectl delete pod tail-end 2>/dev/null`,
  'blank lines': `true${'\n'.repeat(201)}kubectl delete pod after-blanks 2>/dev/null`,
  'secret before code': 'ls; DEPLOY_TOKEN=abcdef;date>>f; kubectl delete pod s 2>/dev/null',
  'long command': `kubectl delete pod long 2>/dev/null; ${Array.from({ length: 120 }, (_, i) => `echo step-${i}`).join('; ')}; echo LAST-STEP`,
  'computed command': 'C=ls; $C >/dev/null; kubectl delete pod c 2>/dev/null',
};

const taskOf = (req: ChatRequest): string => req.messages.find((m) => m.role === 'user')?.content ?? '';

let model: ScriptedModel;
let serve: CliProcess;
let link: string;
let base: string;
let taskQueue: string;
let workerEnvironment: Record<string, string>;
let worker: WorkerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let evil: PageServer;

async function start(task: string): Promise<string> {
  const workflowId = `inbox-${task.replaceAll(' ', '-')}-${randomUUID().slice(0, 8)}`;
  await client().workflow.start('agentWorkflow', { taskQueue, workflowId, args: [{ task, model: 'scripted', cwd }] });
  return workflowId;
}

async function pending(workflowId: string): Promise<AgentState['pendingApprovals']> {
  return (await client().workflow.getHandle(workflowId).query<AgentState>('state')).pendingApprovals;
}

/** The inbox page, logged in (each test can run alone; the first one checks the login itself). */
async function openInbox(): Promise<void> {
  // The sign-in link sets the session and then moves on to the inbox: that move ends before the next page opens.
  if ((await context.cookies(base)).length === 0) {
    await page.goto(link);
    await page.waitForURL(`${base}/inbox`);
  } else await page.goto(`${base}/inbox`);
  await page.waitForSelector('body[data-ready="true"]');
}

/** A text node that says only null or undefined: a missing value drawn as text. */
const strayNulls = (selector: string): Promise<boolean> =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(`${selector}, ${selector} *`)})].some((e) => [...e.childNodes].some((c) => c.nodeType === 3 && /^(null|undefined)$/.test(c.textContent.trim())))`,
  ) as Promise<boolean>;

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

beforeAll(async () => {
  const executablePath = findBrowser(undefined);
  if (!executablePath) throw new Error("no Chromium: install Debian's chromium");
  model = await startScriptedModel([
    (req) => ({ toolCalls: [{ name: 'terminal', arguments: { command: COMMANDS[taskOf(req)] ?? 'true' } }] }),
    (req) => ({ content: `finished: ${taskOf(req)}` }),
  ]);
  const w = workerEnv(inject('temporalAddress'), model.url, 'inbox');
  taskQueue = w.taskQueue;
  workerEnvironment = w.env;
  worker = await workers.start(w.env);
  serve = startCli(['serve', '--port', '0'], { env: w.env });
  link = (await serve.waitFor(/^inbox: (http:\/\/\S+)$/m, 'the inbox link'))[1]!;
  base = new URL(link).origin;
  browser = await chromium.launch({ executablePath, headless: true, chromiumSandbox: process.getuid?.() !== 0 });
  context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  page = await context.newPage();
  // Another origin on the same machine: same site for cookies (ports do not count), so only Origin and CSRF stop it.
  evil = await startPageServer({
    '/': { headers: { 'content-type': 'text/html' }, body: '<!doctype html><html><body>evil</body></html>' },
  });
});

afterAll(async () => {
  await browser?.close();
  await serve?.kill();
  await evil?.close();
  await model?.close();
});

describe('the approval inbox (real Chromium, real worker, scripted model)', () => {
  it('logs in with the printed link: an HttpOnly SameSite=Strict cookie, and the token leaves the address', async () => {
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/inbox\?token=[A-Za-z0-9_-]{32,}$/);
    const before = await page.goto(`${base}/inbox`);
    expect(before?.status()).toBe(401);
    expect(await page.locator('#login-needed').textContent()).toMatch(/Log in with the link\s+tether serve\s+printed/);
    const wrong = await page.goto(`${base}/inbox?token=${'x'.repeat(43)}`);
    expect(wrong?.status()).toBe(401);

    await page.goto(link);
    await page.waitForURL(`${base}/inbox`);
    await page.waitForSelector('body[data-ready="true"]');
    const [cookie, ...others] = await context.cookies(base);
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate('document.cookie')).toBe('');

    // The link clicked on a page of another site (localhost is another site than 127.0.0.1): the session
    // (SameSite=Strict) must still reach the inbox after the login's redirect.
    const fresh = await browser.newContext();
    const elsewhere = await fresh.newPage();
    await elsewhere.goto(evil.url('/').replace('127.0.0.1', 'localhost'));
    await elsewhere.evaluate(
      `(() => { const a = document.createElement('a'); a.href = ${JSON.stringify(link)}; a.textContent = 'inbox'; a.id = 'go'; document.body.append(a); })()`,
    );
    await elsewhere.click('#go');
    await elsewhere.waitForURL(`${base}/inbox`);
    await elsewhere.waitForSelector('body[data-ready="true"]');
    expect(await elsewhere.locator('#login-needed').count()).toBe(0);
    await fresh.close();
  });

  it('a pending approval appears without a reload; `once` runs the command exactly once and the run completes', async () => {
    await openInbox();
    const workflowId = await start('approve once');
    const row = page.locator(`[data-workflow-id="${workflowId}"][data-approval-id]`);
    await row.waitFor({ timeout: LISTING_MS });
    const [p] = await pending(workflowId);
    expect(await row.getAttribute('data-approval-id')).toBe(p!.approvalId);
    expect(await row.locator('[data-command]').textContent()).toBe(COMMANDS['approve once']);
    expect(await row.locator('[data-rule]').allTextContents()).toEqual(p!.findings.map((f) => f.rule));
    expect(await row.locator('.task').textContent()).toContain('approve once');
    expect(lines(marker)).toEqual([]);
    if (SHOTS) {
      mkdirSync(imagesDir, { recursive: true });
      await page.screenshot({ path: join(imagesDir, 'inbox.png'), fullPage: true });
    }

    await row.locator('[data-decision="once"]').click();
    await row.waitFor({ state: 'detached' });
    const result = (await client().workflow.getHandle(workflowId).result()) as AgentResult;
    expect(result).toMatchObject({ status: 'completed', answer: 'finished: approve once' });
    expect(lines(marker)).toEqual(['ran']);

    // The run's transcript: the tool call with its arguments, its result, the answer, and who approved it.
    await page.goto(`${base}/inbox/runs/${encodeURIComponent(workflowId)}`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('[data-answer]').textContent()).toBe('finished: approve once');
    const transcript = await page.locator('ol.transcript').textContent();
    expect(transcript).toContain(COMMANDS['approve once']!.replaceAll('"', '\\"'));
    expect(await page.locator('.decided[data-choice="once"] [data-by]').textContent()).toBe('inbox');
    expect(await strayNulls('main')).toBe(false);
    if (SHOTS) await page.screenshot({ path: join(imagesDir, 'inbox-run.png'), fullPage: true });
    await page.goto(`${base}/inbox/runs`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator(`tr[data-workflow-id="${workflowId}"] [data-status]`).textContent()).toBe('completed');
  }, 240_000);

  it('shows markup, quotes and control characters in a command as text; `deny` with a reason reaches the model', async () => {
    await openInbox();
    const workflowId = await start('deny with a reason');
    const row = page.locator(`[data-workflow-id="${workflowId}"][data-approval-id]`);
    await row.waitFor({ timeout: LISTING_MS });
    expect(await row.locator('[data-command]').textContent()).toBe(visibleText(COMMANDS['deny with a reason']!));
    expect(await row.locator('[data-command]').textContent()).toContain('echo "\\x1b[2Knever\\u202e"');
    expect(await row.locator('[data-hidden-note]').textContent()).toMatch(
      /control, bidi, invisible or look-alike characters/,
    );
    expect(await row.locator('script, img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();

    expect(await strayNulls('.approval')).toBe(false);
    expect(await row.locator('form.deny').isVisible()).toBe(false);
    await row.locator('[data-decision="deny"]').click();
    const reason = 'not on a Friday <b>"please"</b>';
    await row.locator('input[data-reason]').fill(reason);
    await row.locator('[data-confirm-deny]').click();
    await row.waitFor({ state: 'detached' });
    await client().workflow.getHandle(workflowId).result();
    const results = model.requests
      .filter((r) => taskOf(r) === 'deny with a reason')
      .flatMap((r) => r.messages.filter((m) => m.role === 'tool'))
      .map((m) => (JSON.parse(m.content ?? '{}') as { error?: string }).error ?? '');
    expect(results.some((e) => e.includes(reason))).toBe(true);
    expect(lines(`${marker}.deny`)).toEqual([]);
    // The run's page shows the same command (in the tool call, the decision and the transcript) as text too.
    await page.goto(`${base}/inbox/runs/${encodeURIComponent(workflowId)}`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('.decided[data-choice="deny"]').textContent()).toContain(`reason: ${reason}`);
    expect(await page.locator('ol.transcript').textContent()).toContain('<script>window.__xss = 1</script>');
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
  }, 240_000);

  it('refuses a request without the session, with a forged cookie, from another origin or without the CSRF token', async () => {
    const workflowId = await start('stay pending');
    await until('a pending approval', async () => (await pending(workflowId).catch(() => [])).length > 0, 60_000);
    const [p] = await pending(workflowId);
    const body = JSON.stringify({ workflowId, approvalId: p!.approvalId, choice: 'once' });
    await openInbox();
    const session = (await context.cookies(base))[0]!;
    const good = `${session.name}=${session.value}`;
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content'))!;
    const post = (headers: Record<string, string>): Promise<Response> =>
      fetch(`${base}/inbox/api/decide`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
      });

    expect((await post({ origin: base, 'x-csrf-token': csrf })).status).toBe(401);
    expect(
      (await post({ cookie: `${session.name}=forged${session.value.slice(6)}`, origin: base, 'x-csrf-token': csrf }))
        .status,
    ).toBe(401);
    expect((await post({ cookie: good, origin: 'http://evil.example', 'x-csrf-token': csrf })).status).toBe(403);
    expect((await post({ cookie: good, 'x-csrf-token': csrf })).status).toBe(403);
    expect((await post({ cookie: good, origin: base })).status).toBe(403);
    expect((await post({ cookie: good, origin: base, 'x-csrf-token': 'a-guess' })).status).toBe(403);
    expect((await fetch(`${base}/inbox/api/approvals`, { headers: { cookie: 'tether_inbox_1=x' } })).status).toBe(401);
    expect((await fetch(`${base}/inbox/runs`)).status).toBe(401);

    // A page of another origin in the same browser (same site: the cookie goes along) cannot decide either.
    const other = await context.newPage();
    await other.goto(evil.url('/'));
    const status = await other.evaluate(
      async ({ url, payload }) => {
        const simple = await fetch(url, { method: 'POST', credentials: 'include', mode: 'no-cors', body: payload });
        const cors = await fetch(url, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json', 'x-csrf-token': 'guess' },
          body: payload,
        }).then(
          (r) => r.status,
          () => 'blocked',
        );
        return [simple.type, cors];
      },
      { url: `${base}/inbox/api/decide`, payload: body },
    );
    expect(status).toEqual(['opaque', 'blocked']);
    await other.close();

    // Still pending, nothing ran; the page still lists it.
    expect((await pending(workflowId)).map((a) => a.approvalId)).toEqual([p!.approvalId]);
    expect(lines(`${marker}.pending`)).toEqual([]);
    await page.locator(`[data-workflow-id="${workflowId}"][data-approval-id="${p!.approvalId}"]`).waitFor();
    await client().workflow.getHandle(workflowId).terminate('test over');
  }, 240_000);

  it('shows the whole of what will run: padding and blank lines counted, code after a secret, the exact text on request, and only the choices offered', async () => {
    await openInbox();
    const ids = new Map<string, string>();
    for (const task of ['padded tail', 'blank lines', 'secret before code', 'long command', 'computed command'])
      ids.set(task, await start(task));
    const row = (task: string) => page.locator(`[data-workflow-id="${ids.get(task)}"][data-approval-id]`);
    for (const task of ids.keys()) await row(task).waitFor({ timeout: LISTING_MS });

    // The tail after 4,100 spaces is on screen, the spaces counted.
    expect(await row('padded tail').locator('[data-command]').textContent()).toBe(
      'echo start⟨4,100 spaces⟩; kubectl delete pod tail-end 2>/dev/null',
    );
    expect(await row('padded tail').locator('[data-gives="session"]').textContent()).toBe(
      `also this exact command in ${cwd}, for the rest of this run`,
    );
    // 200 blank lines are one counted line: the card stays the size of a few lines.
    const blanks = row('blank lines');
    expect(await blanks.locator('[data-command]').textContent()).toBe(
      'true\n⟨200 blank lines⟩\nkubectl delete pod after-blanks 2>/dev/null',
    );
    expect((await blanks.locator('[data-command]').boundingBox())!.height).toBeLessThan(200);
    // A secret value is a marked span; the code after it is shown; the exact text is one click away.
    const secret = row('secret before code');
    expect(await secret.locator('[data-command]').textContent()).toBe(
      'ls; DEPLOY_TOKEN=⟨redacted: 6 characters⟩;date>>f; kubectl delete pod s 2>/dev/null',
    );
    await secret.locator('[data-show-exact]').click();
    await secret.locator('[data-command][data-exact]').waitFor();
    expect(await secret.locator('[data-command]').textContent()).toBe(COMMANDS['secret before code']);
    // A long command is cut in the listing, said so, and shown whole on request.
    const long = row('long command');
    expect(await long.locator('[data-shortened-note]').textContent()).toContain(
      `${COMMANDS['long command']!.length} characters in all`,
    );
    expect(await long.locator('[data-command]').textContent()).not.toContain('LAST-STEP');
    await long.locator('[data-show-exact]').click();
    await long.locator('[data-command][data-exact]').waitFor();
    expect(await long.locator('[data-command]').textContent()).toBe(COMMANDS['long command']);
    // A computed command: only once or deny, and the page says why.
    const computed = row('computed command');
    expect(
      await computed.locator('[data-decision]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-decision'))),
    ).toEqual(['once', 'deny']);
    expect(await computed.locator('[data-gives="session"]').textContent()).toMatch(
      /^\(not offered\) once only: \[dynamic-command\] means tether could not read what will run/,
    );
    if (SHOTS) await page.screenshot({ path: join(imagesDir, 'inbox-what-runs.png'), fullPage: true });
    for (const id of ids.values()) await client().workflow.getHandle(id).terminate('test over');
  }, 240_000);

  it('a decision sent while no worker runs is queued as the signal, and applies once a worker is back', async () => {
    const workflowId = await start('decide while no worker runs');
    await until('a pending approval', async () => (await pending(workflowId).catch(() => [])).length > 0, 60_000);
    const [p] = await pending(workflowId);
    await worker.kill();
    await openInbox();
    // What the page's Deny/Approve buttons send, from the page itself (its cookie, Origin and CSRF token).
    const answer = await page.evaluate(
      `fetch('/inbox/api/decide', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': document.querySelector('meta[name="csrf-token"]').content }, body: ${JSON.stringify(JSON.stringify({ workflowId, approvalId: p!.approvalId, callId: p!.callId, argsDigest: p!.argsDigest, choice: 'once' }))} }).then(async (r) => [r.status, (await r.json()).status])`,
    );
    expect(answer).toEqual([202, 'queued']);
    expect(lines(`${marker}.queued`)).toEqual([]);
    worker = await workers.start(workerEnvironment);
    expect(await client().workflow.getHandle(workflowId).result()).toMatchObject({ status: 'completed' });
    expect(lines(`${marker}.queued`)).toEqual(['queued']);
  }, 240_000);
});
