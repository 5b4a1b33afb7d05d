// Benchmark (not a test): per-command overhead of a trivial command in the task's long-lived shell, side by side
// with a bare `sh -c true` spawn and each backend's bare transport (one process / docker exec / SSH channel per
// command), printed as ratios; the same command inside its activity; background-process start to first output. On
// the local backend with its bubblewrap sandbox and without, Docker and SSH (when they can run here); the egress
// proxy's cost per request and per connection (bench/egress.ts); what the egress policy adds to a web_extract fetch
// (bench/web-egress.ts); what holding protected files costs per command on a 400-directory tree
// (bench/protected-files.ts).
// Run: npm run bench:environments
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/config.js';
import { EnvironmentManager } from '../src/environments/manager.js';
import type { ShellEnvironment } from '../src/environments/shell-environment.js';
import { dockerAvailable, ensureTestImage } from '../test/support/docker-fixture.js';
import { sshdAvailable, startSshd } from '../test/support/sshd-fixture.js';
import { fmt, machine, silent, summary } from './stats.js';
import { NO_PROCESS, toolActivity, TRIVIAL_COMMAND } from './terminal-activity.js';
import { sdkNoopActivity } from './noop-activity.js';
import { benchEgress } from './egress.js';
import { benchProtection } from './protected-files.js';
import { benchWebEgress } from './web-egress.js';

const COMMANDS = 200;
const BACKGROUND = 30;
const WARMUP = 10;

/** What the worker pays to start one process: `sh -c true` spawned from Node, to its exit. */
async function bareSpawn(): Promise<ReturnType<typeof summary>> {
  const once = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn('sh', ['-c', 'true'], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
  for (let i = 0; i < WARMUP; i += 1) await once();
  const samples: number[] = [];
  for (let i = 0; i < COMMANDS; i += 1) samples.push(await time(once));
  return summary(samples);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** A trivial command through the whole environment path (carried state, process group, watchdog). */
async function commandOverhead(env: ShellEnvironment): Promise<ReturnType<typeof summary>> {
  for (let i = 0; i < WARMUP; i += 1) await env.run({ command: 'true', timeoutSeconds: 30 });
  const samples: number[] = [];
  for (let i = 0; i < COMMANDS; i += 1) {
    samples.push(
      await time(async () => {
        const r = await env.run({ command: 'true', timeoutSeconds: 30 });
        if (r.exitCode !== 0) throw new Error(`true exited with ${r.exitCode}: ${r.output}`);
      }),
    );
  }
  return summary(samples);
}

/** The bare transport: `sh -c true` as a process / docker exec / SSH channel of its own (today's per-command path). */
async function transportOverhead(env: ShellEnvironment): Promise<ReturnType<typeof summary>> {
  const samples: number[] = [];
  for (let i = 0; i < COMMANDS; i += 1) samples.push(await time(() => env.exec('true')));
  return summary(samples);
}

/** From asking for a background process to seeing its first line through `poll`. */
async function backgroundLatency(env: ShellEnvironment): Promise<ReturnType<typeof summary>> {
  const samples: number[] = [];
  for (let i = 0; i < BACKGROUND; i += 1) {
    let id = '';
    samples.push(
      await time(async () => {
        id = (await env.processes.start('echo ready; sleep 30', {})).id;
        for (;;) {
          const p = await env.processes.poll(id, 1000);
          if (p.new_output.toString().includes('ready')) return;
          await new Promise((r) => setTimeout(r, 5));
        }
      }),
    );
    await env.processes.kill(id);
  }
  return summary(samples);
}

interface Figures {
  bare: number;
  command: number;
}

const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;

async function bench(name: string, terminal: Record<string, unknown>, hostCwd: string): Promise<Figures> {
  const manager = new EnvironmentManager({
    terminal: parseConfig({ terminal }).terminal,
    workerId: 'bench',
    log: silent,
  });
  try {
    return await manager.use(`bench-${name.replace(/\W/g, '')}`, { hostCwd }, async ({ env }) => {
      const bare = await transportOverhead(env);
      const cmd = await commandOverhead(env);
      const bg = await backgroundLatency(env);
      console.log(
        `${name.padEnd(13)} trivial command in the task shell (${cmd.n}): median ${fmt(cmd.median)} ms, p99 ${fmt(cmd.p99)} ms · ` +
          `bare transport sh -c true: median ${fmt(bare.median)} ms, p99 ${fmt(bare.p99)} ms · ` +
          `command / bare transport ${ratio(cmd.median, bare.median)} · ` +
          `background start to first output (${bg.n}): median ${fmt(bg.median)} ms, p99 ${fmt(bg.p99)} ms`,
      );
      return { bare: bare.median, command: cmd.median };
    });
  } finally {
    await manager.closeAll();
  }
}

console.log(`terminal environments on ${machine()}, ${new Date().toISOString().slice(0, 10)}`);
const spawned = await bareSpawn();
console.log(
  `bare spawn    sh -c true from node (${spawned.n}): median ${fmt(spawned.median)} ms, p99 ${fmt(spawned.p99)} ms`,
);
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-env-')));
const sandboxed = await bench('local+sandbox', { backend: 'local', local: { sandbox: 'on' } }, cwd);
const plain = await bench('local', { backend: 'local', local: { sandbox: 'off' } }, cwd);
console.log(
  `local vs bare spawn (target <= 3 ms and <= 1x): sandbox off ${fmt(plain.command)} ms = ${ratio(plain.command, spawned.median)} · ` +
    `sandbox on ${fmt(sandboxed.command)} ms = ${ratio(sandboxed.command, spawned.median)}`,
);

await benchEgress(cwd);
await benchProtection();
await benchWebEgress();

const noDocker = await dockerAvailable();
if (noDocker) console.log(`docker        skipped: ${noDocker}`);
else {
  const d = await bench('docker', { backend: 'docker', docker: { image: await ensureTestImage() } }, cwd);
  console.log(
    `docker vs bare docker exec (target <= 10 ms and <= 0.20x): ${fmt(d.command)} ms = ${ratio(d.command, d.bare)}`,
  );
}

const noSsh = sshdAvailable();
if (noSsh) console.log(`ssh           skipped: ${noSsh}`);
else {
  const sshd = await startSshd();
  try {
    const r = await bench(
      'ssh',
      {
        backend: 'ssh',
        ssh: {
          host: '127.0.0.1',
          port: sshd.port,
          user: sshd.user,
          key_path: sshd.keyPath,
          known_hosts: sshd.knownHostsPath,
          cwd: sshd.dir,
        },
      },
      cwd,
    );
    console.log(
      `ssh vs bare exec channel (target <= 15 ms and <= 0.05x): ${fmt(r.command)} ms = ${ratio(r.command, r.bare)}`,
    );
  } finally {
    await sshd.dispose();
  }
}

// The default config: local backend, sandbox on (on Linux).
const activity = await toolActivity(TRIVIAL_COMMAND, 100, 5);
// The same run's floor: a tool call that starts no process, so what is left is Temporal's dispatch and completion.
const floor = await toolActivity(NO_PROCESS, 100, 5);
// Below that, Temporal's own: a bare SDK worker's no-op activity on a server of its own, taken the same way.
const sdk = await sdkNoopActivity(100, 5, true);
const sdkRouted = await sdkNoopActivity(100, 5, false);
const spawnedAgain = await bareSpawn();
const spawnMedian = Math.min(spawned.median, spawnedAgain.median);
console.log(
  `local terminal call inside its activity (${activity.n}, history timestamps): median ${fmt(activity.median)} ms, p99 ${fmt(activity.p99)} ms · ` +
    `bare spawn ${fmt(spawnMedian)} ms (lower of two runs: ${fmt(spawned.median)}, ${fmt(spawnedAgain.median)}) · ratio ${ratio(activity.median, spawnMedian)} (target <= 3x)`,
  `\n  of which any tool activity's own cost (read_file of a one-line file, ${floor.n} calls): median ${fmt(floor.median)} ms · ` +
    `the command's share: ${fmt(activity.median - floor.median)} ms = ${ratio(activity.median - floor.median, spawnMedian)} the bare spawn`,
  `\n  Temporal's own floor (a bare SDK worker's no-op activity on its workflow's queue, eager dispatch as tether's calls, ${sdk.n} calls): median ${fmt(sdk.median)} ms = ${ratio(sdk.median, spawnMedian)} the bare spawn · ` +
    `tether's part of the terminal call (above that floor): ${fmt(activity.median - sdk.median)} ms = ${ratio(activity.median - sdk.median, spawnMedian)} the bare spawn`,
  `\n  the same no-op on another queue (through matching, as a call sent to the holding worker's own queue): median ${fmt(sdkRouted.median)} ms = ${ratio(sdkRouted.median, spawnMedian)} the bare spawn`,
);
