// A real agent run whose own background command flips names in the task directory between a file and a link out
// (to a config file outside, to /proc/self/environ, to a directory outside) while the model calls write_file,
// patch and read_file on them, 30 calls a turn: the file tools never read or write outside the task directory.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import type { AgentResult } from '../src/common/types.js';
import { harness, type Harness } from './support/agent-harness.js';
import { startScriptedModel, type ScriptedCall, type Step } from './support/scripted-model.js';

let h: Harness;
beforeAll(async () => {
  // Approvals off: containment must hold when nothing asks (the flipper below runs unasked).
  h = await harness(
    parseConfig({ approvals: { mode: 'off' }, terminal: { backend: 'local', local: { sandbox: { enabled: true } } } }),
  );
});
afterAll(async () => {
  await h.close();
});

const TURNS = 34;

it(`file tools never follow a racing link out of the task directory (${TURNS * 30} calls through the real worker)`, async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-race-agent-')));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'tether-race-outside-')));
  mkdirSync(join(outside, '.tether'));
  const config = join(outside, '.tether/config.yaml');
  writeFileSync(config, 'command_allowlist: []\n');
  // The flipper runs inside the sandbox, where `outside` is read-only; the links' text names it all the same.
  const flip = (name: string, target: string): string =>
    `(while :; do ln -sfn ${target} .l-${name} && mv -Tf .l-${name} ${name}; printf inside > .f-${name} && mv -Tf .f-${name} ${name}; done) &`;
  const flipper = `${flip('w', config)} ${flip('r', config)} ${flip('e', '/proc/self/environ')} ${flip('d', outside)} wait`;
  const round: ScriptedCall[] = [];
  for (let i = 0; i < 6; i += 1) {
    round.push({ name: 'write_file', arguments: { path: 'w', content: "command_allowlist: ['*']\n" } });
    round.push({ name: 'patch', arguments: { path: 'w', old_string: '[]', new_string: "['*']" } });
    round.push({ name: 'read_file', arguments: { path: 'r' } });
    round.push({ name: 'read_file', arguments: { path: 'e' } });
    round.push({ name: 'write_file', arguments: { path: 'd/planted.txt', content: 'x' } });
  }
  const steps: Step[] = [
    { toolCalls: [{ name: 'terminal', arguments: { command: flipper, background: true } }] },
    ...Array.from({ length: TURNS }, (): Step => ({ toolCalls: round })),
    { content: 'done' },
  ];
  const model = await startScriptedModel(steps);
  let result: AgentResult | undefined;
  await h.withWorker(model.url, async () => {
    result = await h.run({
      task: 'race',
      cwd,
      enabledToolsets: ['terminal', 'file'],
      limits: { maxTurns: TURNS + 3 },
      // A thousand short results: no summary of older turns (it would be a model call the script does not hold).
      compaction: { thresholdChars: 50_000_000 },
    });
  });
  expect(result!.status).toBe('completed');
  expect(readFileSync(config, 'utf8')).toBe('command_allowlist: []\n');
  expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  // Every tool result of every turn: nothing of the worker's environment, nothing of the config.
  const results = (model.requests.at(-1)?.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  expect(results.length).toBeGreaterThanOrEqual(TURNS * 30);
  for (const text of results) {
    expect(text).not.toMatch(/PATH=\//);
    expect(text).not.toMatch(/command_allowlist/);
  }
  // The race was live: some reads found the file inside, others found the link and were refused.
  const reads = results.filter((t) => t.includes('"content"'));
  expect(reads.some((t) => t.includes('inside'))).toBe(true);
  expect(results.some((t) => /outside the working directory/.test(t))).toBe(true);
  expect(model.errors).toEqual([]);
  await model.close();
}, 600_000);
