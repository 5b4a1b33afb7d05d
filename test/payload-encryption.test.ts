// Payload encryption through a real dev server and the compiled CLI: with `temporal.encryption.key_file`, the raw
// history (`temporal workflow show --output json`, every payload decoded from base64) holds no plaintext of the task,
// a tool output or the answer, while `tether status`, `attach` and `list` show them; without the key a command says
// so in one line; a rotated key file still reads older runs; `tether codec-server` lets the temporal CLI decode.
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { findTemporalBinary } from '../src/temporal/temporal-bin.js';
import { cliPath, runCli, until } from './support/cli.js';
import { freePort } from '../src/temporal/dev-server.js';
import { startScriptedModel } from './support/scripted-model.js';
import { workerProcessSuite } from './support/worker-process.js';
import { recentRuns } from '../src/inbox/data.js';

const suite = workerProcessSuite();
const { workers, models } = suite;
const exec = promisify(execFile);

/** A TETHER_HOME whose config.yaml names a key file holding `keys` (base64, one a line). */
function home(keys: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tether-enc-'));
  writeFileSync(join(dir, 'payload.keys'), `${keys.join('\n')}\n`);
  chmodSync(join(dir, 'payload.keys'), 0o600);
  writeFileSync(join(dir, 'config.yaml'), 'temporal:\n  encryption:\n    key_file: payload.keys\n');
  return dir;
}

/** The raw history as the temporal CLI prints it, with every base64 field decoded beside it. */
async function rawHistory(workflowId: string, extra: string[] = []): Promise<string> {
  const { stdout } = await exec(
    findTemporalBinary(),
    ['workflow', 'show', '--address', inject('temporalAddress'), '--workflow-id', workflowId, '--output', 'json', ...extra],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const decoded = [...stdout.matchAll(/"([A-Za-z0-9+/]{4,}={0,2})"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('latin1'));
  return `${stdout}\n${decoded.join('\n')}`;
} // prettier-ignore

describe('payload encryption', () => {
  it('keeps the task, tool outputs and the answer out of the raw history, and every tether command reads them', async () => {
    const m = randomUUID().slice(0, 8);
    const secret = { task: `task-${m}`, output: `TOOLOUT${m.toUpperCase()}`, answer: `answer-${m}` };
    const key = randomBytes(32).toString('base64');
    const model = await startScriptedModel([
      // The command names the output only in lower case: the upper-case text exists only as the tool's output.
      { toolCalls: [{ name: 'terminal', arguments: { command: `echo toolout${m} | tr a-z A-Z` } }] },
      { toolCalls: [{ name: 'clarify', arguments: { question: 'go on?' } }] },
      { content: secret.answer },
    ]);
    models.push(model);
    const taskQueue = `enc-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TETHER_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test-key',
      TETHER_HOME: home([key]),
    };
    const cwd = mkdtempSync(join(tmpdir(), 'tether-enc-cwd-'));
    const tether = (args: string[], e: Record<string, string> = env): ReturnType<typeof runCli> =>
      runCli(args, { cwd, env: e });
    const worker = await workers.start(env);
    expect(worker.output()).not.toContain('error');
    const started = await tether(['run', '--detach', '--no-worker', '--model', 'scripted', secret.task]);
    expect(started.code, started.stderr).toBe(0);
    const workflowId = started.stdout.trim();

    // While it waits on its question: the state shows the tool's output, the listing the task.
    await until('the question', async () => (await tether(['status', workflowId, '--json'])).stdout.includes('go on?'));
    const live = await tether(['status', workflowId, '--json']);
    expect(live.stdout).toContain(secret.output);
    const listed = await tether(['list', '--json']);
    expect(listed.stdout).toContain(secret.task);
    expect((await tether(['answer', workflowId, 'yes'])).code).toBe(0);
    // (This test's own client has no key: even describing the run fails on its encrypted memo, so tether is asked.)
    await until('the run to complete', async () =>
      (await tether(['status', workflowId, '--json'])).stdout.includes('"temporalStatus": "COMPLETED"'),
    );
    // The inbox's listing on a client without the key lists the run (its memo unread) instead of failing the page.
    const recent = await recentRuns(suite.client(), 1000);
    expect(recent.find((r) => r.workflowId === workflowId)?.status).toBe('COMPLETED');
    const status = await tether(['status', workflowId]);
    expect(status.stdout).toContain(`answer: ${secret.answer}`);
    const attach = await tether(['attach', workflowId]);
    expect(attach.stdout + attach.stderr).toContain(secret.answer);

    const raw = await rawHistory(workflowId);
    for (const text of [secret.task, secret.output, secret.answer, `toolout${m}`, 'go on?'])
      expect(raw.includes(text), `${text} in the raw history`).toBe(false);
    expect(raw).toContain('binary/encrypted');

    // Without the key: one line naming the setting, never the sealed bytes.
    const bare = await tether(['status', workflowId], { ...env, TETHER_HOME: mkdtempSync(join(tmpdir(), 'nokey-')) });
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toMatch(/^tether: this data was written encrypted \(key id [0-9a-f]{16}\) and temporal\.encryption\.key_file is not set here/);
    expect(bare.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    // A rotated key file (a new key first, the old one after it) reads the old run; a file without it says which key.
    const rotated = await tether(['status', workflowId], { ...env, TETHER_HOME: home([randomBytes(32).toString('base64'), key]) });
    expect(rotated.stdout).toContain(secret.answer);
    const other = await tether(['status', workflowId], { ...env, TETHER_HOME: home([randomBytes(32).toString('base64')]) });
    expect(other.stderr).toMatch(/encrypted with key id [0-9a-f]{16}, which temporal\.encryption\.key_file \(.*payload\.keys\) does not hold/);

    // tether codec-server: the temporal CLI shows the history as text through it.
    const port = await freePort();
    const codec = spawn('node', [cliPath, 'codec-server', '--port', String(port)], { env: { ...process.env, ...env } });
    try {
      let out = '';
      codec.stdout.on('data', (c: Buffer) => (out += c.toString()));
      await until('the codec server', () => out.includes('tether codec-server on'));
      const shown = await rawHistory(workflowId, ['--codec-endpoint', `http://127.0.0.1:${port}`]);
      expect(shown).toContain(secret.answer);
      expect(shown).toContain(secret.output);
    } finally {
      codec.kill('SIGTERM');
    }
    await workers.killAll();
  }, 300_000); // prettier-ignore
});
