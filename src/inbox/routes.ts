// The inbox's HTTP routes under /inbox: login with the token, the pages, their JSON, decisions (POST, same origin,
// CSRF token) and the page's own static files. Every page and action needs a session. Worker-only.
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { APPROVAL_CHOICES, type ApprovalChoice, type ApprovalDecision } from '../common/approval-types.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { sendDecision } from '../decisions/decide.js';
import { readBody } from '../decisions/read-body.js';
import type { InboxAuth } from './auth.js';
import { exactApproval, inboxApprovals, recentRuns, runDetail } from './data.js';
import { parseStrictJson } from '../approval/strict-json.js';
import { loggedInPage, loginPage, viewPage } from './page.js';
import { restoreCheckpoint } from './restore.js';
import { loadConfig, type CheckpointSettings } from '../config/config.js';

/** dist/inbox and src/inbox both sit two levels below the project: the files are read from src either way. */
const ASSET_DIR = fileURLToPath(new URL('../../src/inbox/assets/', import.meta.url));
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const MAX_REASON = 2000;

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

function loadAssets(): Map<string, { type: string; body: string }> {
  const out = new Map<string, { type: string; body: string }>();
  for (const name of readdirSync(ASSET_DIR)) {
    const type = TYPES[/\.(\w+)$/.exec(name)?.[1] ?? ''];
    if (type && /^[a-z-]+\.(js|css)$/.test(name)) out.set(name, { type, body: readFileSync(ASSET_DIR + name, 'utf8') });
  }
  return out;
}

function reply(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS, ...extra });
  res.end(body);
}
const json = (res: ServerResponse, status: number, payload: unknown): void =>
  reply(res, status, 'application/json', `${JSON.stringify(payload)}\n`);
const html = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void =>
  reply(res, status, 'text/html; charset=utf-8', body, extra);

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/** A decision as the page posts it, checked field by field; a string says what was wrong. */
function parseDecision(text: string): { workflowId: string; decision: ApprovalDecision } | string {
  let body: unknown;
  try {
    body = parseStrictJson(text);
  } catch (err) {
    return `body is not JSON, or holds a key twice: ${(err as Error).message}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be a JSON object';
  const b = body as Record<string, unknown>;
  for (const k of ['workflowId', 'approvalId', 'choice'])
    if (typeof b[k] !== 'string' || b[k] === '') return `${k} must be a non-empty string`;
  for (const k of ['reason', 'callId', 'argsDigest'])
    if (b[k] !== undefined && typeof b[k] !== 'string') return `${k} must be a string when given`;
  if (!APPROVAL_CHOICES.includes(b.choice as ApprovalChoice))
    return `choice must be one of ${APPROVAL_CHOICES.join(', ')}`;
  const reason = typeof b.reason === 'string' ? b.reason.trim() : '';
  if (reason.length > MAX_REASON) return `reason has ${reason.length} characters; at most ${MAX_REASON}`;
  return {
    workflowId: b.workflowId as string,
    decision: {
      approvalId: b.approvalId as string,
      choice: b.choice as ApprovalChoice,
      ...(reason ? { reason } : {}),
      ...(typeof b.callId === 'string' ? { callId: b.callId } : {}),
      ...(typeof b.argsDigest === 'string' ? { argsDigest: b.argsDigest } : {}),
      by: 'inbox',
    },
  };
}

interface InboxOptions {
  client: Client;
  settings: TemporalSettings;
  auth: InboxAuth;
  /** Listening on loopback: a request naming another host (DNS rebinding) is refused. */
  loopbackOnly: boolean;
  /** The checkpoint settings a run view's summaries and a restore use (default: config.yaml's). */
  checkpoints?: CheckpointSettings;
}

/** Handles /inbox and below; false for any other path (the gateway's own routes). */
export function inboxRoutes(opts: InboxOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const { client, settings, auth } = opts;
  const checkpoints = opts.checkpoints ?? loadConfig().checkpoints;
  const assets = loadAssets();
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://inbox.invalid');
    const path = url.pathname;
    if (path !== '/inbox' && !path.startsWith('/inbox/')) return false;
    if (opts.loopbackOnly && !LOOPBACK_HOST.test(req.headers.host ?? '')) {
      json(res, 421, { error: `Host ${req.headers.host ?? '(none)'} is not this loopback server` });
      return true;
    }
    const asset = /^\/inbox\/assets\/([a-z-]+\.(?:js|css))$/.exec(path)?.[1];
    if (req.method === 'GET' && asset) {
      const a = assets.get(asset);
      if (a) reply(res, 200, a.type, a.body);
      else json(res, 404, { error: `no asset ${asset}` });
      return true;
    }
    const token = url.searchParams.get('token');
    if (req.method === 'GET' && path === '/inbox' && token !== null) {
      if (!auth.tokenMatches(token)) {
        html(res, 401, loginPage('That link holds an old or wrong token (tether serve --new-token makes a new one).'));
        return true;
      }
      const { cookie } = auth.open();
      // On to the page without the token. Not an HTTP redirect: after a link clicked on another site the browser
      // would count the redirect as cross-site too and hold the SameSite=Strict cookie back; a navigation this
      // page starts is same-site.
      html(res, 200, loggedInPage(), { 'set-cookie': cookie });
      return true;
    }
    const session = auth.session(req);
    if (!session) {
      if (req.method === 'GET' && !path.startsWith('/inbox/api/')) html(res, 401, loginPage('No session.'));
      else json(res, 401, { error: 'no session: log in with the link tether serve printed' });
      return true;
    }
    if (req.method === 'POST') {
      const refusal = auth.actionRefusal(req, session);
      if (refusal) json(res, 403, { error: refusal });
      else if (path === '/inbox/api/decide') await decide(req, res, client, settings);
      else if (path === '/inbox/api/restore') await restore(req, res, client, checkpoints);
      else json(res, 404, { error: `no route POST ${path}` });
      return true;
    }
    if (req.method !== 'GET') {
      json(res, 405, { error: `${req.method ?? ''} not allowed` });
      return true;
    }
    const runId = /^\/inbox\/(api\/)?runs\/([^/]+)$/.exec(path);
    if (path === '/inbox') html(res, 200, viewPage('approvals', session.csrf));
    else if (path === '/inbox/runs') html(res, 200, viewPage('runs', session.csrf));
    else if (runId && !runId[1]) html(res, 200, viewPage('run', session.csrf));
    else if (path === '/inbox/api/approvals') json(res, 200, await inboxApprovals(client));
    else if (path === '/inbox/api/exact') await exact(res, client, url.searchParams);
    else if (path === '/inbox/api/runs') json(res, 200, { runs: await recentRuns(client, 50) });
    else if (runId) await run(res, client, runId[2] ?? '', checkpoints);
    else json(res, 404, { error: `no route GET ${path}` });
    return true;
  };
}

/** One pending approval's exact, whole text (the listing's is bounded and redacted). */
async function exact(res: ServerResponse, client: Client, params: URLSearchParams): Promise<void> {
  const workflowId = params.get('workflowId') ?? '';
  const approvalId = params.get('approvalId') ?? '';
  if (!workflowId || !approvalId) return json(res, 400, { error: 'give workflowId and approvalId' });
  try {
    const view = await exactApproval(client, workflowId, approvalId);
    if (view === 'no-worker')
      return json(res, 503, { error: 'no worker answered: the exact text is read from the run, which needs a worker' });
    if (!view) return json(res, 404, { error: `approval ${approvalId} is not pending in run ${workflowId}` });
    json(res, 200, view);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) json(res, 404, { error: `no such run: ${workflowId}` });
    else throw err;
  }
}

async function run(
  res: ServerResponse,
  client: Client,
  encoded: string,
  checkpoints: CheckpointSettings,
): Promise<void> {
  let workflowId: string;
  try {
    workflowId = decodeURIComponent(encoded);
  } catch {
    return json(res, 400, { error: `not a valid run id in the address: ${encoded}` });
  }
  try {
    json(res, 200, await runDetail(client, workflowId, checkpoints));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) json(res, 404, { error: `no such run: ${workflowId}` });
    else throw err;
  }
}

async function restore(req: IncomingMessage, res: ServerResponse, client: Client, checkpoints: CheckpointSettings) {
  const body = await readBody(req);
  if (!body.ok) return json(res, 413, { error: 'body too large' });
  const out = await restoreCheckpoint(client, checkpoints, body.text);
  json(res, out.status, out.body);
}

async function decide(req: IncomingMessage, res: ServerResponse, client: Client, settings: TemporalSettings) {
  const body = await readBody(req);
  if (!body.ok) return json(res, 413, { error: 'body too large' });
  const parsed = parseDecision(body.text);
  if (typeof parsed === 'string') return json(res, 400, { error: parsed });
  const { workflowId, decision } = parsed;
  try {
    const out = await sendDecision(client, settings, workflowId, decision);
    if (out.status === 'rejected') return json(res, 409, { error: out.reason });
    json(res, out.status === 'applied' ? 200 : 202, {
      status: out.status,
      ...(out.status === 'queued' ? { note: out.note } : {}),
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return json(res, 404, { error: `no such run: ${workflowId}` });
    json(res, 502, { error: `could not reach the run: ${(err as Error).message}` });
  }
}
