// How `tether` starts: the command table matches the modules it loads, client-only commands never import worker,
// tool, parser, browser or model code (seen in the list of modules the process loaded), and the quick reads
// (approvals, list, status) answer from the lean reader exactly as the SDK's client does, falling back to it.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { COMMANDS, type AddCommands } from '../src/cli/commands.js';
import { harness, type Harness } from './support/agent-harness.js';
import { cliPath, until } from './support/cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const traceHook = fileURLToPath(new URL('./support/module-trace.mjs', import.meta.url));

/** What a client-only command may not load: the worker and what only it needs. */
const WORKER_ONLY: [RegExp, string][] = [
  [/\/dist\/worker\.js$/, 'the worker'],
  [/\/dist\/(activities|registry|tools|toolsets|mcp|plugins|code|workflows|batch|acp)\//, 'worker code'],
  [/\/dist\/environments\//, 'worker code'],
  // An approval is shown to a person through pure display modules (escapes, look-alikes, redaction, the choices
  // each scope gives); the detector, its parsers and rules are not among them.
  [
    /\/dist\/approval\/(?!(visible-text|lookalikes|approval-view|approval-text|approval-redact)\.js$)/,
    'the command detector',
  ],
  [/\/dist\/(browser|models)\//, 'browser or model code'],
  [/node_modules\/(tree-sitter-[a-z]+|web-tree-sitter|oxc-parser)\//, 'a parser'],
  [/node_modules\/(playwright-core|node-llama-cpp|openai|@modelcontextprotocol\/sdk)\//, 'browser, model or MCP code'],
  [/node_modules\/(@temporalio\/worker|webpack|dockerode|ssh2|node-pty|better-sqlite3)\//, 'worker-only packages'],
];

interface Traced {
  code: number;
  stdout: string;
  stderr: string;
  modules: string[];
}

function traced(args: string[], env: Record<string, string>): Promise<Traced> {
  const file = join(mkdtempSync(join(tmpdir(), 'tether-trace-')), 'modules.txt');
  return new Promise((resolve) => {
    execFile(
      'node',
      ['--import', traceHook, cliPath, ...args],
      { env: { ...process.env, ...env, TETHER_MODULE_TRACE: file } },
      (err, stdout, stderr) => {
        const modules = readFileSync(file, 'utf8').split('\n').filter(Boolean);
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, modules });
      },
    );
  });
}

function workerOnly(modules: string[]): string[] {
  return modules.flatMap((m) => WORKER_ONLY.filter(([re]) => re.test(m)).map(([, what]) => `${what}: ${m}`));
}

const sdkClient = (modules: string[]): boolean => modules.some((m) => m.includes('/@temporalio/client/'));

describe('the command table (src/cli/commands.ts)', () => {
  it("names every command its modules define, each with the module's own description", async () => {
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
    const byModule = new Map<AddCommands, string[]>();
    for (const entry of COMMANDS) {
      const add = await entry.load();
      byModule.set(add, [...(byModule.get(add) ?? []), entry.name]);
    }
    for (const [add, names] of byModule) {
      const program = new Command();
      add(program);
      const defined = program.commands.map((c) => c.name());
      // A command a module defines but the table does not name would never be reachable.
      expect(defined.sort(), `commands defined by the module of '${names[0]}'`).toEqual([...names].sort());
      for (const c of program.commands)
        expect(c.description(), `summary of '${c.name()}'`).toBe(COMMANDS.find((e) => e.name === c.name())!.summary);
    }
  });
});

describe('client-only commands', () => {
  let env: Record<string, string>;
  beforeAll(() => {
    env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-start-home-')),
      TETHER_TASK_QUEUE: `start-${randomUUID()}`,
    };
  });

  it('--version, --help and help <command> load no Temporal, worker or tool code', async () => {
    for (const args of [['--version'], ['--help'], ['help', 'status'], []]) {
      const r = await traced(args, env);
      expect(r.stdout + r.stderr, args.join(' ')).toMatch(/0\.1\.0|Usage: tether/);
      expect(workerOnly(r.modules), args.join(' ')).toEqual([]);
      expect(
        r.modules.filter((m) => m.includes('@temporalio')),
        args.join(' '),
      ).toEqual([]);
    }
    const help = await traced(['--help'], env);
    for (const c of COMMANDS) expect(help.stdout).toContain(`  ${c.name}`);
  });

  // Unknown ids still load every module the command needs (imports are static, or made before the call fails).
  const invocations: Record<string, string[]> = {
    status: ['status', 'no-such-run'],
    attach: ['attach', 'no-such-run', '--no-prompt'],
    say: ['say', 'no-such-run', 'hello'],
    answer: ['answer', 'no-such-run', 'yes'],
    cancel: ['cancel', 'no-such-run', '--wait', '0'],
    list: ['list', '--json'],
    approvals: ['approvals', '--json'],
    approve: ['approve', 'no-such-run', 'ap-1'],
    deny: ['deny', 'no-such-run', 'ap-1'],
    cluster: ['cluster', 'setup'],
    // No key file here: it says so and stops (with one it would serve).
    'codec-server': ['codec-server', '--port', '0'],
  };

  it('every client-only command of the table is run here', () => {
    expect(
      COMMANDS.filter((c) => c.clientOnly)
        .map((c) => c.name)
        .sort(),
    ).toEqual(Object.keys(invocations).sort());
  });

  for (const [name, args] of Object.entries(invocations)) {
    it(`tether ${args.join(' ')} loads no worker, tool, parser, browser or model module`, async () => {
      const r = await traced(args, env);
      expect(r.stderr).not.toMatch(/unexpected error|at .*\.js:\d+/);
      expect(r.modules.some((m) => m.endsWith(`/dist/client.js`))).toBe(true);
      expect(workerOnly(r.modules), name).toEqual([]);
    });
  }

  it('a bad command word still gets the suggestion, not a crash', async () => {
    const r = await traced(['approvlas'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown command 'approvlas'");
    expect(r.stderr).toContain('approvals');
    expect(workerOnly(r.modules)).toEqual([]);
  });
});

describe('quick reads: the lean reader answers as the SDK client does', () => {
  let h: Harness;
  let model: ScriptedModel;
  let env: Record<string, string>;
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-start-')));
  beforeAll(async () => {
    h = await harness();
    model = await startScriptedModel([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'kubectl delete pod web 2>/dev/null; echo gone' } }] },
      { content: 'the pod is gone' },
    ]);
    env = { TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue, TETHER_HOME: cwd };
  });
  afterAll(async () => {
    await model.close();
    await h.close();
  });

  /** The same command on the lean path and on the SDK client (TETHER_LEAN_READS=0): same exit code and output. */
  async function both(args: string[]): Promise<{ lean: Traced; full: Traced }> {
    const lean = await traced(args, env);
    const full = await traced(args, { ...env, TETHER_LEAN_READS: '0' });
    expect(sdkClient(full.modules)).toBe(true);
    expect({ code: lean.code, out: lean.stdout, err: lean.stderr }, args.join(' ')).toEqual({
      code: full.code,
      out: full.stdout,
      err: full.stderr,
    });
    return { lean, full };
  }

  it('status, list and approvals of a run waiting for approval, then completed; others fall back', async () => {
    const id = `start-${randomUUID()}`;
    await h.withWorker(model.url, async () => {
      const handle = await h.client.workflow.start('agentWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: id,
        args: [{ task: 'delete the web pod', model: 'scripted', cwd }],
      });
      let pending: { approvalId: string }[] = [];
      await until('the approval to be listed', async () => {
        const r = await traced(['approvals', '--json'], env);
        pending = (JSON.parse(r.stdout) as { workflowId: string; approvalId: string }[]).filter(
          (a) => a.workflowId === id,
        );
        return pending.length === 1;
      });
      // While a worker answers its query, the running run's status is its live state.
      for (const args of [['status', id, '--json'], ['status', id], ['approvals', '--json'], ['approvals']]) {
        const { lean } = await both(args);
        expect(sdkClient(lean.modules), `${args.join(' ')} used the lean reader`).toBe(false);
      }
      const listed = await both(['list', '--json', '--limit', '1000']);
      expect(sdkClient(listed.lean.modules)).toBe(false);
      expect(listed.lean.stdout).toContain(id);
      expect((await traced(['approve', id, pending[0]!.approvalId], env)).code).toBe(0);
      await handle.result();
    });
    const done = await both(['status', id, '--json']);
    expect(sdkClient(done.lean.modules)).toBe(false);
    expect(JSON.parse(done.lean.stdout)).toMatchObject({
      workflowId: id,
      status: 'completed',
      answer: 'the pod is gone',
    });

    // What the lean reader leaves to the client: a terminated run, an unknown one, a bad page token.
    const other = `start-${randomUUID()}`;
    await h.client.workflow.start('agentWorkflow', { taskQueue: `${h.taskQueue}-none`, workflowId: other, args: [] });
    await h.client.workflow.getHandle(other).terminate('test');
    const terminated = await both(['status', other, '--json']);
    expect(sdkClient(terminated.lean.modules)).toBe(true);
    expect(JSON.parse(terminated.lean.stdout)).toMatchObject({ temporalStatus: 'TERMINATED', status: 'failed' });
    const unknown = await both(['status', 'no-such-run']);
    expect(unknown.lean.stderr).toBe('tether: no such run: no-such-run\n');
    const token = await both(['list', '--page-token', 'not-a-token']);
    expect(token.lean.stderr).toContain('--page-token');
  }, 180_000);
});
