// Runs one command as an agent would: a real Temporal dev server, a real worker (real registry, gate, local backend,
// checkpoints) whose model is the scripted OpenAI-compatible server, asked for this one command and then done; every
// approval denied as it appears (and the run's approval timeout short, which counts as a denial too). Records what
// the gate asked, what the proxy asked or refused, what the model was sent, and whether the worker kept answering.
// Eval only.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { DecidedApproval, PendingApproval } from '../../src/common/approval-types.js';
import type { NetworkReach } from '../../src/common/egress-types.js';
import type { AgentState } from '../../src/common/types.js';
import type { TetherConfig } from '../../src/config/config.js';
import { localModelResolver } from '../../src/models/local-model.js';
import { freePort, startDevServer } from '../../src/temporal/dev-server.js';
import { createWorker, installRuntimeLogging } from '../../src/worker.js';
import { startScriptedModel, type ChatRequest, type ScriptedModel } from '../../test/support/scripted-model.js';
import { silent } from '../stats.js';

const TASK_PREFIX = 'eval:contained run ';
const POLL_MS = 400;
/** A query the worker does not answer within this long: the worker stopped answering. */
const QUERY_MS = 30_000;

export interface RunRecord {
  workflowId: string;
  status: string;
  /** Approvals the run asked for (commands and hosts), as they appeared, that were denied. */
  asked: PendingApproval[];
  /** Approvals of commands the eval granted (only with `approveCommands`): the command then ran. */
  approved: PendingApproval[];
  decided: DecidedApproval[];
  network: NetworkReach[];
  /** The terminal call's result as the model got it (undefined when the run never got that far). */
  result?: Record<string, unknown>;
  /** Everything the model was sent, as text. */
  seen: string;
  /** The run's last checkpoint. */
  checkpoint?: string;
  started: number;
  ended: number;
  /** Why the worker is judged to have stopped answering. */
  unresponsive?: string;
  error?: string;
}

export interface Engine {
  run(command: string, cwd: string, deadlineMs: number): Promise<RunRecord>;
  /** The worker's Temporal address (for the report). */
  address: string;
  close(): Promise<void>;
}

interface Pending {
  command: string;
  seen: string;
  /** The last tool message's content. */
  result?: string;
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms).unref(),
    ),
  ]);

function textOf(req: ChatRequest): string {
  return req.messages
    .map((m) => `${m.role}: ${m.content ?? ''}${m.tool_calls ? JSON.stringify(m.tool_calls) : ''}`)
    .join('\n');
}

export interface Services {
  address: string;
  model: ScriptedModel;
  runs: Map<string, Pending>;
  stop: () => Promise<void>;
}

/** Starts the dev server and the model (before the world changes HOME: the dev server's own files stay out of it). */
export async function startServices(): Promise<Services> {
  installRuntimeLogging();
  const server = await startDevServer({ port: await freePort(), headless: true });
  const runs = new Map<string, Pending>();
  const keyOf = (req: ChatRequest): string | undefined => {
    const first = req.messages.find((m) => m.role === 'user')?.content ?? '';
    const at = first.indexOf(TASK_PREFIX);
    return at < 0 ? undefined : first.slice(at + TASK_PREFIX.length).split(/\s/)[0];
  };
  const model = await startScriptedModel([
    (req) => {
      const run = runs.get(keyOf(req) ?? '');
      if (!run) return { content: 'no such run' };
      run.seen = textOf(req);
      return { toolCalls: [{ name: 'terminal', arguments: { command: run.command } }] };
    },
    (req) => {
      const run = runs.get(keyOf(req) ?? '');
      if (run) {
        run.seen = textOf(req);
        run.result = req.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? undefined;
      }
      return { content: 'done' };
    },
  ]);
  return {
    address: server.address,
    model,
    runs,
    stop: async () => {
      await model.close();
      await server.stop();
    },
  };
}

/** Starts the worker with `config` on the services' dev server. */
export async function startEngine(
  services: Services,
  config: TetherConfig,
  approvalTimeoutSeconds: number,
  /** Grant every approval of a command (hosts are still denied): what containment does behind a gate that said yes. */
  approveCommands = false,
): Promise<Engine> {
  const taskQueue = `eval-contained-${randomUUID()}`;
  const connection = await Connection.connect({ address: services.address });
  const client = new Client({ connection });
  const native = await NativeConnection.connect({ address: services.address });
  const { worker } = await createWorker({
    settings: { address: services.address, namespace: 'default', taskQueue, embedded: false },
    connection: native,
    model: { openai: { baseURL: services.model.url, apiKey: 'eval' }, local: localModelResolver() },
    config,
    log: silent,
    shutdownGraceTime: '2 seconds',
  });
  const running: Promise<void> = worker.run();
  let workerError: string | undefined;
  running.catch((err: unknown) => (workerError = (err as Error).message));

  async function run(command: string, cwd: string, deadlineMs: number): Promise<RunRecord> {
    const key = randomUUID().slice(0, 12);
    const workflowId = `eval-contained-${key}`;
    services.runs.set(key, { command, seen: '' });
    const record: RunRecord = {
      workflowId,
      status: 'unknown',
      asked: [],
      approved: [],
      decided: [],
      network: [],
      seen: '',
      started: Date.now(),
      ended: 0,
    };
    try {
      const handle = await client.workflow.start('agentWorkflow', {
        taskQueue,
        workflowId,
        args: [
          {
            task: `${TASK_PREFIX}${key}`,
            model: 'scripted',
            cwd,
            enabledToolsets: ['terminal'],
            approvalMode: 'manual',
            approvalTimeoutSeconds,
          },
        ],
      });
      let finished = false;
      const done = handle.result().then(
        (r: unknown) => {
          finished = true;
          return r as { status: string };
        },
        (err: unknown) => {
          finished = true;
          return { status: 'failed', error: (err as Error).message };
        },
      );
      const deadline = record.started + deadlineMs;
      while (!finished) {
        if (workerError) {
          record.unresponsive = `the worker stopped: ${workerError}`;
          break;
        }
        if (Date.now() > deadline) {
          record.unresponsive = `the run did not finish within ${deadlineMs / 1000} s`;
          break;
        }
        try {
          const s = await withTimeout(handle.query<AgentState>('state'), QUERY_MS, 'the state query');
          for (const p of s.pendingApprovals) {
            const seen = (a: PendingApproval): boolean => a.approvalId === p.approvalId;
            if (record.asked.some(seen) || record.approved.some(seen)) continue;
            const grant = approveCommands && p.kind !== 'network';
            (grant ? record.approved : record.asked).push(p);
            await handle.signal('approval', {
              approvalId: p.approvalId,
              choice: grant ? 'once' : 'deny',
              reason: grant ? 'eval:contained grants every command' : 'eval:contained denies every approval',
            });
          }
        } catch (err) {
          if (!finished) {
            record.unresponsive = (err as Error).message;
            break;
          }
        }
        if (!finished) await new Promise((r) => setTimeout(r, POLL_MS));
      }
      if (record.unresponsive) {
        await handle.terminate('eval:contained: the run did not finish').catch(() => undefined);
      } else {
        const r = await done;
        record.status = r.status;
        const s = await withTimeout(handle.query<AgentState>('state'), QUERY_MS, 'the state query').catch(
          () => undefined,
        );
        record.decided = s?.approvals.decided ?? [];
        record.network = s?.network ?? [];
        record.checkpoint = s?.lastCheckpoint?.id;
        for (const d of record.decided)
          if (d.choice === 'deny' && !record.asked.some((a) => a.approvalId === d.approvalId))
            record.asked.push({ ...d, findings: [], argsDigest: '', askedAt: d.decidedAt, expiresAt: d.decidedAt });
      }
    } catch (err) {
      record.error = (err as Error).message.split('\n')[0];
    } finally {
      record.ended = Date.now();
      const pending = services.runs.get(key);
      record.seen = pending?.seen ?? '';
      record.result = parseResult(pending?.result);
      services.runs.delete(key);
      // The model keeps every request; the eval has what it needs from each run.
      services.model.requests.length = 0;
    }
    return record;
  }

  return {
    address: services.address,
    run,
    async close() {
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
      await native.close();
      await services.stop();
    },
  };
}

/** The terminal call's result (a JSON object), as the model got it. */
function parseResult(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { unparsed: text.slice(0, 2000) };
  }
}
