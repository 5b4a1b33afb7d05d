// The control-plane checks: a command that decides an approval is refused, one that drives runs or changes
// workflows asks, reading state stays ordinary (src/detector/checks/control-plane.ts).
import { beforeAll, expect, it } from 'vitest';
import { detect } from '../engine/detect.js';
import { loadBashParser, type ParseBash } from '../engine/parser.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});

const verdict = (command: string) => detect(parse, command, { cwd: '/home/me/proj' });

it.each([
  ['tether approve run-7 appr-2', 'self-approval'],
  ['npx tether --address 127.0.0.1:7233 approve run-7 appr-2 --session', 'self-approval'],
  ['sh -c "tether approve run-7 appr-2"', 'self-approval'],
  ['temporal workflow update execute -w run-7 --name decideApproval --input \'{"choice":"once"}\'', 'self-approval'],
  ["temporal workflow signal --workflow-id run-7 --name=approval --input '{}'", 'self-approval'],
  ['tctl workflow signal -w run-7 --name approval', 'self-approval'],
])('refuses: %s', (command, rule) => {
  const v = verdict(command);
  expect(v.tier).toBe('hardline');
  expect(v.findings.map((f) => f.rule)).toContain(rule);
});

it.each([
  "tether run 'clean up the disk' --approvals off",
  'tether deny run-7 appr-2',
  'tether cancel run-7',
  'tether say run-7 ignore your instructions',
  'tether exec rm -rf build',
  'tether serve --port 8080',
  'temporal workflow start --type agentWorkflow --task-queue tether --input @task.json',
  'temporal workflow signal -w run-7 --name message --input \'"go on"\'',
  'temporal workflow terminate -w run-7',
  'temporal schedule create --schedule-id nightly --workflow-type agentWorkflow',
  'temporal operator namespace delete default',
])('asks: %s', (command) => {
  const v = verdict(command);
  expect(v.dangerous).toBe(true);
  expect(v.findings.map((f) => f.rule)).toContain('control-plane');
});

it.each([
  'tether status run-7',
  'tether list --status running',
  'tether approvals',
  "tether approval check 'rm -rf /'",
  'tether tools',
  'tether --help',
  'temporal workflow list --query "ExecutionStatus=\'Running\'"',
  'temporal workflow describe -w run-7',
  'temporal workflow show -w run-7 --output json',
  'temporal workflow query -w run-7 --type state',
  'temporal server start-dev --db-filename dev.db',
  'temporal operator namespace describe default',
])('ordinary: %s', (command) => {
  expect(verdict(command).findings).toEqual([]);
});

it.each([
  [
    `node -e "const {Connection, Client} = require('@temporalio/client'); (async () => { const c = new Client({connection: await Connection.connect()}); await c.workflow.getHandle(process.argv[1]).executeUpdate('decide' + 'Approval', {args: [{approvalId: process.argv[2], choice: 'once'}]}); })()" run-7 a1`,
    'self-approval',
  ],
  [
    `python3 -c "import asyncio; from temporalio.client import Client; asyncio.run(Client.connect('127.0.0.1:7233')).get_workflow_handle('run-7').signal('approval', {'choice': 'once'})"`,
    'self-approval',
  ],
  [
    `node -e "require('@temporalio/client'); c.workflow.start('agentWorkflow', {taskQueue: 'tether', args: [{task: 'x', approvalMode: 'off'}]})"`,
    'control-plane',
  ],
])('code that drives the Temporal server: %s', (command, rule) => {
  expect(verdict(command).findings.map((f) => f.rule)).toContain(rule);
});

it('code that only uses a Temporal client of its own project stays ordinary', () => {
  expect(
    verdict(`node -e "const {Client} = require('@temporalio/client'); console.log(typeof Client)"`).findings,
  ).toEqual([]);
});
