// Evaluation (not a test): both local models on a small fixed set of agent tasks, run as real agent runs (dev
// server, worker, tools), each model with the tools `tether run` gives it. Prints tool-call correctness and task
// success side by side. Run: npm run eval:local-model [-- --model <id>] [--task <name>] [--max-turns N]
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentInput, AgentResult, ModelReply } from '../src/common/types.js';
import { LOCAL_MODELS } from '../src/models/local-catalog.js';
import { localModelSettingsFor } from '../src/models/local-model.js';
import { LOCAL_PREFIX } from '../src/models/types.js';
import { registry } from '../src/registry/index.js';
import { jsonPayload, type RawPayload } from '../src/payloads/json-payload.js';
import { getToolDefinitions } from '../src/toolsets/resolve.js';
import { durableEnv } from './durable-env.js';
import { fmt, machine } from './stats.js';

interface Task {
  name: string;
  prompt: string;
  files: Record<string, string>;
  /** Whether a call does part of the job (the right tool, on the right file or with a fitting command). */
  right: (name: string, args: Record<string, unknown>) => boolean;
  /** Whether the task was done, from the answer and the project afterwards. */
  check: (answer: string, cwd: string) => boolean;
}

const csv = Array.from({ length: 37 }, (_, i) => `${i + 1},item-${i + 1},${(i * 7) % 13}`).join('\n');

const TASKS: Task[] = [
  {
    name: 'read',
    prompt: 'Read notes.txt and tell me what it says',
    files: { 'notes.txt': 'The plumber comes on Thursday at 3pm to fix the kitchen sink.\n' },
    right: (name, a) =>
      (name === 'read_file' && /(^|\/)notes\.txt$/.test(String(a.path))) ||
      (name === 'terminal' && /notes\.txt/.test(String(a.command))),
    check: (answer) => /thursday/i.test(answer) && /plumber|sink/i.test(answer),
  },
  {
    name: 'count',
    prompt: 'Use the terminal to count the lines in data.csv, and tell me the number',
    files: { 'data.csv': `${csv}\n` },
    right: (name, a) => name === 'terminal' && /data\.csv/.test(String(a.command)),
    check: (answer) => /\b37\b/.test(answer),
  },
  {
    name: 'list',
    prompt: 'List the files in this directory',
    files: { 'alpha.txt': 'a\n', 'beta.md': '# b\n', 'src/main.py': 'print("hi")\n' },
    right: (name, a) =>
      (name === 'terminal' && /^\s*(ls|find|tree)\b/.test(String(a.command))) ||
      (name === 'search_files' && a.target === 'files'),
    check: (answer) => ['alpha.txt', 'beta.md', 'src'].every((n) => answer.includes(n)),
  },
  {
    name: 'project',
    prompt: 'Look at the files here and say what this project is',
    files: {
      'package.json':
        '{\n  "name": "skycast",\n  "version": "1.0.0",\n  "main": "index.js",\n  "bin": { "skycast": "index.js" }\n}\n',
      'index.js':
        "#!/usr/bin/env node\n// Prints tomorrow's weather forecast for a city.\nconst city = process.argv[2] ?? 'Oslo';\nfetch(`https://api.example.com/forecast?city=${city}`)\n  .then((r) => r.json())\n  .then((f) => console.log(`${city}: ${f.summary}, ${f.high}°C`));\n",
    },
    right: (name, a) =>
      (name === 'read_file' && /(^|\/)(package\.json|index\.js)$/.test(String(a.path))) ||
      (name === 'terminal' && /^\s*(ls|find|tree|cat)\b/.test(String(a.command))) ||
      (name === 'search_files' && a.target === 'files'),
    check: (answer) => /weather|forecast/i.test(answer),
  },
  {
    name: 'fix',
    prompt: 'Fix the bug in calc.py: add(a, b) must return the sum of a and b',
    files: { 'calc.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n' },
    right: (name, a) =>
      (['read_file', 'patch', 'write_file'].includes(name) && /(^|\/)calc\.py$/.test(String(a.path))) ||
      (name === 'terminal' && /calc/.test(String(a.command))),
    check: (_answer, cwd) => {
      try {
        execFileSync('python3', ['-c', 'import calc; assert calc.add(2, 3) == 5 and calc.mul(2, 3) == 6'], {
          cwd,
          stdio: 'ignore',
        });
        return true;
      } catch {
        return false;
      }
    },
  },
];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const onlyModel = arg('model');
const onlyTask = arg('task');
const maxTurns = Number(arg('max-turns') ?? 8);
const models = LOCAL_MODELS.filter((m) => !onlyModel || m.id === onlyModel);
const tasks = TASKS.filter((t) => !onlyTask || t.name === onlyTask);
if (models.length === 0 || tasks.length === 0) {
  console.error(
    `eval:local-model: no such model or task (models: ${LOCAL_MODELS.map((m) => m.id).join(', ')}; tasks: ${TASKS.map((t) => t.name).join(', ')})`,
  );
  process.exit(2);
}
for (const m of models) {
  if (!localModelSettingsFor(`${LOCAL_PREFIX}${m.id}`)) {
    console.error(`eval:local-model: ${m.id} is not installed: npx tether model install ${m.id}`);
    process.exit(1);
  }
}

/** The model's replies, from the run's history (the callModel activities' results). */
async function modelReplies(env: Awaited<ReturnType<typeof durableEnv>>, workflowId: string): Promise<ModelReply[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const types = new Map<string, string>();
  const replies: ModelReply[] = [];
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(e.eventId), scheduled.activityType?.name ?? '');
    const done = e.activityTaskCompletedEventAttributes;
    if (done && types.get(String(done.scheduledEventId)) === 'callModel') {
      const decoded = jsonPayload(done.result?.payloads?.[0] as RawPayload | undefined);
      if (decoded.ok) replies.push(decoded.value as ModelReply);
    }
  }
  return replies;
}

interface Row {
  model: string;
  task: string;
  calls: number;
  /** Well formed: an offered tool, arguments its schema accepts. */
  valid: number;
  /** Valid and doing part of the task (Task.right). */
  right: number;
  firstRight: boolean;
  success: boolean;
  turns: number;
  seconds: number;
  answer: string;
}

const env = await durableEnv();
// Stopped early (Ctrl-C), the dev server it started goes too.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void env.close().finally(() => process.exit(130)));
const taskQueue = `eval-${randomUUID()}`;
const worker = await env.worker(taskQueue, 'http://127.0.0.1:9/unused');
const running = worker.run();
const rows: Row[] = [];
for (const m of models) {
  const model = `${LOCAL_PREFIX}${m.id}`;
  const offered = new Set(
    getToolDefinitions({ enabledToolsets: m.toolsets, disabledToolsets: m.disabledToolsets, quiet: true }).map(
      (t) => t.function.name,
    ),
  );
  for (const task of tasks) {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), `eval-${task.name}-`)));
    for (const [file, text] of Object.entries(task.files)) {
      mkdirSync(dirname(join(cwd, file)), { recursive: true });
      writeFileSync(join(cwd, file), text);
    }
    const input: AgentInput = {
      task: task.prompt,
      model,
      cwd,
      enabledToolsets: m.toolsets,
      disabledToolsets: m.disabledToolsets,
      limits: { maxTurns },
      // No person watches an evaluation: nothing waits for approval (hardline commands are still refused).
      approvalMode: 'off',
    };
    const workflowId = `eval-${m.id}-${task.name}-${randomUUID().slice(0, 8)}`;
    const started = performance.now();
    const handle = await env.client.workflow.start('agentWorkflow', { taskQueue, workflowId, args: [input] });
    let result: AgentResult | undefined;
    try {
      result = (await handle.result()) as AgentResult;
    } catch (err) {
      result = undefined;
      console.error(`${m.id} ${task.name}: the run failed: ${(err as Error).message}`);
    }
    const seconds = (performance.now() - started) / 1000;
    const calls = (await modelReplies(env, workflowId)).flatMap((r) => r.message.tool_calls ?? []);
    const args = (c: (typeof calls)[number]): Record<string, unknown> | undefined => {
      try {
        return JSON.parse(c.function.arguments) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    };
    const valid = calls.filter(
      (c) => offered.has(c.function.name) && registry.get(c.function.name)!.validate(args(c) ?? null).ok,
    );
    const right = valid.filter((c) => task.right(c.function.name, args(c)!));
    const first = calls[0];
    const answer = result?.answer ?? '';
    const row: Row = {
      model: m.id,
      task: task.name,
      calls: calls.length,
      valid: valid.length,
      right: right.length,
      firstRight: first !== undefined && right.includes(first),
      success: result?.status === 'completed' && task.check(answer, cwd),
      turns: result?.turns ?? 0,
      seconds,
      answer: answer.replace(/\s+/g, ' ').slice(0, 100),
    };
    rows.push(row);
    console.error(
      `${row.model} ${row.task}: ${row.success ? 'done' : 'not done'} · ${row.right}/${row.valid}/${row.calls} right/valid/all calls · ${fmt(seconds, 0)} s · ${row.answer}`,
    );
  }
}
worker.shutdown();
await running;
await env.close();

const cpuLoad = loadavg()
  .map((l) => fmt(l, 1))
  .join(' ');
console.log(`eval:local-model on ${machine()}, load average ${cpuLoad}, max ${maxTurns} turns, approvals off`);
console.log('');
const ids = models.map((m) => m.id);
console.log(
  '(first: the first call was well formed and did part of the task; calls: right / well formed / all; done: the task',
);
console.log('was done, judged from the answer and the files afterwards)');
console.log('');
console.log(`| task | ${ids.map((id) => `${id}: first · calls · done · time`).join(' | ')} |`);
console.log(`|---|${ids.map(() => '---').join('|')}|`);
for (const task of tasks) {
  const cells = ids.map((id) => {
    const r = rows.find((x) => x.model === id && x.task === task.name)!;
    return `${r.firstRight ? 'yes' : 'no'} · ${r.right}/${r.valid}/${r.calls} · ${r.success ? '**yes**' : 'no'} · ${fmt(r.seconds, 0)} s`;
  });
  console.log(`| ${task.name} | ${cells.join(' | ')} |`);
}
const totals = ids.map((id) => {
  const mine = rows.filter((r) => r.model === id);
  const calls = mine.reduce((a, r) => a + r.calls, 0);
  const valid = mine.reduce((a, r) => a + r.valid, 0);
  const right = mine.reduce((a, r) => a + r.right, 0);
  return `${mine.filter((r) => r.firstRight).length}/${mine.length} · ${right}/${valid}/${calls} · ${mine.filter((r) => r.success).length}/${mine.length} · ${fmt(mine.reduce((a, r) => a + r.seconds, 0) / mine.length, 0)} s mean`;
});
console.log(`| **all** | ${totals.join(' | ')} |`);
console.log('');
console.log('Reproduce: npm run eval:local-model (both models must be installed: npx tether model install <id>)');
