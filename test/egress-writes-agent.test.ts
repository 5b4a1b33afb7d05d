// Reads pass, writes ask, credentials stay out of reach, on the real worker (dev server, scripted model, bubblewrap
// sandbox, the egress proxy opening HTTPS with the worker's CA): a GET to a default-allowed registry passes unasked,
// a PUT to it is a pending approval showing what it sends and, denied, never arrives; git clone over HTTPS passes
// and git push to a forge allowed for reading asks (session covers the next push); with egress.credentials a push and
// an API call arrive carrying the token while nothing inside the sandbox, no tool result and no history holds it.
// Outside hosts are names mapped by egress.resolve to HTTPS stand-ins on 127.0.0.1 (a private CA from openssl,
// trusted upstream through egress.upstream_ca_file); no traffic leaves loopback.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import type { AgentResult, AgentState } from '../src/common/types.js';
import type { PendingApproval } from '../src/common/approval-types.js';
import { networkTargetOf } from '../src/common/egress-types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';
import { gitSmartHttp, makeCertificate, resolveAll, startStandIn, type StandIn } from './support/egress-stand-in.js';

const TOKEN = `ghs_${randomBytes(18).toString('hex')}`;
/** Every form of the token a command could hold: as is, inside git's Basic header, and that header's base64. */
const FORMS = [TOKEN, Buffer.from(`x-access-token:${TOKEN}`).toString('base64'), TOKEN.slice(4, 24)];
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tether-egress-writes-')));
let h: Harness;
/** The registry (npm's name) and an open forge. */
let outside: StandIn;
/** A forge that takes pushes only with the token (as a real one would), and its API. */
let forge: StandIn;
/** A registry that drops a connection quiet for 500 ms, as servers drop idle clients. */
let impatient: StandIn;

const git = (args: string[], cwd = dir): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { cwd, encoding: 'utf8' });

/** A bare repository under `root` with one commit on main. */
function bareRepo(root: string, name: string): void {
  const seed = join(dir, `seed-${name.replace(/\W/g, '-')}`);
  git(['init', '-q', '-b', 'main', seed]);
  git(['commit', '-q', '--allow-empty', '-m', 'first commit'], seed);
  git(['init', '-q', '--bare', join(root, name)]);
  git(['push', '-q', join(root, name), 'main'], seed);
  git(['-C', join(root, name), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
}

beforeAll(async () => {
  makeCertificate(dir, ['registry.npmjs.org']);
  const tls = { cert: join(dir, 'ca.pem'), key: join(dir, 'stand-in.key') };
  bareRepo(join(dir, 'open'), 'repo.git');
  bareRepo(join(dir, 'private'), 'team/app.git');
  outside = await startStandIn(gitSmartHttp(join(dir, 'open')), tls);
  const basic = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
  forge = await startStandIn(gitSmartHttp(join(dir, 'private'), basic), tls);
  impatient = await startStandIn(undefined, tls, undefined, 500);
  process.env.TETHER_TEST_FORGE_TOKEN = TOKEN;
  h = await harness(
    parseConfig({
      approvals: { mode: 'manual' },
      terminal: {
        backend: 'local',
        local: {
          sandbox: {
            egress: {
              allow: [
                'defaults',
                { host: 'forge.example.test', access: 'read' },
                { host: 'impatient.example.test', access: 'read' },
                // Push rights to one repository, without the token: the proxy adds it.
                { host: 'git.example.test', access: 'write', paths: ['/team/app.git/'] },
                'api.example.test',
              ],
              credentials: [
                { host: 'git.example.test', basic: 'x-access-token:${TETHER_TEST_FORGE_TOKEN}' },
                { host: 'api.example.test', value: 'Bearer ${TETHER_TEST_FORGE_TOKEN}' },
              ],
              upstream_ca_file: join(dir, 'ca.pem'),
              resolve: {
                ...resolveAll(['registry.npmjs.org', 'forge.example.test'], outside),
                ...resolveAll(['git.example.test', 'api.example.test'], forge),
                ...resolveAll(['impatient.example.test'], impatient),
              },
            },
          },
        },
      },
    }),
  );
});

afterAll(async () => {
  delete process.env.TETHER_TEST_FORGE_TOKEN;
  await h.close();
  await outside.close();
  await forge.close();
  await impatient.close();
});

const state = (handle: WorkflowHandle): Promise<AgentState> => handle.query<AgentState>('state');
const project = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'tether-egress-writes-run-')));
const start = (cwd: string): Promise<WorkflowHandle> =>
  h.client.workflow.start('agentWorkflow', {
    taskQueue: h.taskQueue,
    workflowId: `egress-writes-${randomUUID()}`,
    args: [{ task: 't', model: 'scripted', cwd }],
  });

async function pending(handle: WorkflowHandle, what: RegExp): Promise<PendingApproval> {
  let found: PendingApproval | undefined;
  await until(
    `a pending approval matching ${String(what)}`,
    async () =>
      (found = (await state(handle)).pendingApprovals.find((p) => what.test(networkTargetOf(p) ?? ''))) !== undefined,
    60_000,
  );
  return found!;
}

const seen = (s: StandIn, method: string, path: string): number =>
  s.seen.filter((x) => x.method === method && x.url === path).length;

describe('reads pass, writes ask', () => {
  it('a GET to a default-allowed registry passes unasked; a PUT to it waits, shows what it sends and, denied, never arrives', async () => {
    const body = '{"name":"demo","_attachments":"\\u0001x"}';
    const command =
      'curl -fsS https://registry.npmjs.org/demo && ' +
      `curl -sS -X PUT -H 'content-type: application/json' --data-binary '${body}' https://registry.npmjs.org/demo`;
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(project());
      const p = await pending(handle, /PUT \/demo$/);
      expect(networkTargetOf(p)).toBe('registry.npmjs.org:443 PUT /demo');
      expect(p).toMatchObject({ kind: 'network', host: 'registry.npmjs.org', port: 443, command, callId: 'call_1_1' });
      // Method, URL, content type, size and the first bytes, escaped; why it asks; who asked.
      expect(p.findings[0]!.description).toBe(
        `network: PUT https://registry.npmjs.org/demo (application/json, ${Buffer.byteLength(body)} bytes), first bytes: ` +
          `"${body.replace(/[\\"]/g, (c) => `\\${c}`)}"; registry.npmjs.org:443 is allowed for reading only ` +
          '(egress.allow: registry.npmjs.org (read)); asked by the command above',
      );
      expect(p.scope?.covers).toBe("PUT requests of this run's commands to https://registry.npmjs.org/demo and below");
      // The GET went through without anyone asked; the PUT has not arrived.
      expect(seen(outside, 'GET', '/demo')).toBe(1);
      expect(seen(outside, 'PUT', '/demo')).toBe(0);
      const listed = await runCli(['approvals'], {
        cwd: tmpdir(),
        env: { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue },
      });
      expect(listed.stdout).toContain('  network: registry.npmjs.org:443 PUT /demo\n');
      await handle.signal('approval', { approvalId: p.approvalId, choice: 'deny', reason: 'no publishing' });
      const result = (await handle.result()) as AgentResult;
      expect(result.status).toBe('completed');
      expect((await state(handle)).approvals.decided).toMatchObject([
        { approvalId: p.approvalId, kind: 'network', choice: 'deny', host: 'registry.npmjs.org' },
      ]);
    });
    const [r] = lastToolResults(model) as { output: string; sandbox?: string }[];
    expect(r!.output).toMatch(/hello from registry\.npmjs\.org\/demo\n[^]*403|tether egress proxy: PUT/);
    expect(r!.output).toMatch(/denied by a person: no publishing/);
    expect(seen(outside, 'PUT', '/demo')).toBe(0);
    expect(model.errors).toEqual([]);
    await model.close();
  }, 180_000);

  it('a write approved after the host dropped the idle connection arrives on a new one', async () => {
    const command = 'curl -fsS -X POST --data-binary late=1 https://impatient.example.test/late';
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(project());
      const p = await pending(handle, /POST \/late$/);
      // Longer than the host keeps a quiet connection: the one opened when the host was allowed is gone.
      await new Promise((r) => setTimeout(r, 2_000));
      await handle.signal('approval', { approvalId: p.approvalId, choice: 'once' });
      await handle.result();
    });
    const [r] = lastToolResults(model) as { exit_code: number; output: string }[];
    expect(r).toMatchObject({ exit_code: 0, output: 'hello from impatient.example.test/late\n' });
    expect(seen(impatient, 'POST', '/late')).toBe(1);
    await model.close();
  }, 180_000);

  it('git clone over HTTPS passes; git push to a forge allowed for reading asks, and session covers the next push', async () => {
    const cwd = project();
    const clone = 'git clone -q https://forge.example.test/repo.git work && git -C work log --format=%s';
    // The shell's directory carries over from one command to the next: each starts from the same place.
    const commit = (m: string): string =>
      `cd ${join(cwd, 'work')} && git -c user.name=t -c user.email=t@example.test commit -q --allow-empty -m ${m} && git push -q origin main`;
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: clone } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: commit('second') } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: commit('third') } }] },
      { content: 'done' },
    ]);
    await h.withWorker(model.url, async () => {
      const handle = await start(cwd);
      const p = await pending(handle, /git-receive-pack$/);
      expect(networkTargetOf(p)).toBe('forge.example.test:443 POST /repo.git/git-receive-pack');
      expect(p.findings[0]!.description).toMatch(
        /^network: POST https:\/\/forge\.example\.test\/repo\.git\/git-receive-pack \(application\/x-git-receive-pack-request, \d+ bytes\), first bytes: "[0-9a-f]{4}/,
      );
      // The clone asked nobody.
      expect((await state(handle)).approvals.decided).toEqual([]);
      await handle.executeUpdate('decideApproval', { args: [{ approvalId: p.approvalId, choice: 'session' }] });
      const result = (await handle.result()) as AgentResult;
      recordHistory(h.address, handle.workflowId, 'egress-request-approvals');
      expect(result.status).toBe('completed');
      const s = await state(handle);
      expect(s.approvals.decided.map((d) => d.choice)).toEqual(['session']);
      expect(s.approvals.sessionRules).toContain('network:forge.example.test:443 POST /repo.git/git-receive-pack');
    });
    const results = lastToolResults(model) as { exit_code: number; output: string }[];
    expect(results[0]!.output).toBe('first commit\n');
    expect(results.map((r) => r.exit_code)).toEqual([0, 0, 0]);
    expect(git(['-C', join(dir, 'open', 'repo.git'), 'log', '--format=%s', 'main'])).toBe(
      'third\nsecond\nfirst commit\n',
    );
    expect(model.errors).toEqual([]);
    await model.close();
  }, 180_000);
});

describe('credentials the proxy adds', () => {
  it('a git push and an API call arrive carrying the token; no command, tool result or history sees any form of it', async () => {
    const cwd = project();
    const push =
      'git clone -q https://git.example.test/team/app.git app && ' +
      'git -C app -c user.name=t -c user.email=t@example.test commit -q --allow-empty -m pushed && git -C app push -q origin main && ' +
      `curl -fsS -X POST -H 'content-type: application/json' -d '{"title":"t"}' https://api.example.test/repos/team/app/issues`;
    const look =
      'env; tr "\\0" "\\n" < /proc/self/environ; git -C app config -l; cat app/.git/config; ' +
      'ls -A ~ 2>/dev/null; grep -rIl x-access-token /run /tmp /etc . 2>/dev/null; echo looked';
    const model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: push } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: look } }] },
      { content: 'done' },
    ]);
    let workflowId = '';
    await h.withWorker(model.url, async () => {
      const handle = await start(cwd);
      workflowId = handle.workflowId;
      const result = (await handle.result()) as AgentResult;
      expect(result.status).toBe('completed');
      // Nobody was asked: the entry allows writes to this repository, and the proxy brought the token.
      expect((await state(handle)).approvals.decided).toEqual([]);
    });
    const results = lastToolResults(model) as { exit_code: number; output: string }[];
    expect(results[0]).toMatchObject({ exit_code: 0 });
    expect(results[0]!.output).toMatch(/hello from api\.example\.test\/repos\/team\/app\/issues/);
    expect(results[1]!.output).toMatch(/looked\n$/);
    expect(git(['-C', join(dir, 'private', 'team/app.git'), 'log', '--format=%s', 'main'])).toBe(
      'pushed\nfirst commit\n',
    );
    const basic = `Basic ${FORMS[1]}`;
    const receive = forge.seen.filter((x) => x.url === '/team/app.git/git-receive-pack');
    expect(receive.map((x) => x.headers.authorization)).toEqual([basic]);
    expect(forge.seen.find((x) => x.url === '/repos/team/app/issues')?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const history = JSON.stringify(await h.client.workflow.getHandle(workflowId).fetchHistory());
    for (const form of FORMS) {
      for (const r of results) expect(r.output).not.toContain(form);
      expect(history).not.toContain(form);
      expect(JSON.stringify(model.requests)).not.toContain(form);
    }
    expect(model.errors).toEqual([]);
    await model.close();
  }, 180_000);
});
