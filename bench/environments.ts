// Benchmark (not a test): per-command overhead of a trivial command, and background-process start to first output,
// on the local backend with its bubblewrap sandbox and without (side by side: the sandbox's cost), Docker and SSH
// (Docker and SSH when they can run here). Run: npm run bench:environments
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/config.js';
import { EnvironmentManager } from '../src/environments/manager.js';
import type { ShellEnvironment } from '../src/environments/shell-environment.js';
import { dockerAvailable, ensureTestImage } from '../test/support/docker-fixture.js';
import { sshdAvailable, startSshd } from '../test/support/sshd-fixture.js';
import { fmt, machine, silent, summary } from './stats.js';

const COMMANDS = 200;
const BACKGROUND = 30;
const WARMUP = 10;

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

/** The bare transport: `sh -c true`, for what the shared wrapper adds on top. */
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
        `${name.padEnd(13)} trivial command (${cmd.n}): median ${fmt(cmd.median)} ms, p99 ${fmt(cmd.p99)} ms · ` +
          `bare transport sh -c true: median ${fmt(bare.median)} ms, p99 ${fmt(bare.p99)} ms · ` +
          `background start to first output (${bg.n}): median ${fmt(bg.median)} ms, p99 ${fmt(bg.p99)} ms`,
      );
      return { bare: bare.median, command: cmd.median };
    });
  } finally {
    await manager.closeAll();
  }
}

console.log(`terminal environments on ${machine()}, ${new Date().toISOString().slice(0, 10)}`);
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-env-')));
const sandboxed = await bench('local+sandbox', { backend: 'local', local: { sandbox: 'on' } }, cwd);
const plain = await bench('local', { backend: 'local', local: { sandbox: 'off' } }, cwd);
console.log(
  `local sandbox cost (medians, with / without): trivial command ${fmt(sandboxed.command)} / ${fmt(plain.command)} ms = ` +
    `+${fmt(sandboxed.command - plain.command)} ms (${(sandboxed.command / plain.command).toFixed(2)}x) · ` +
    `bare sh -c true ${fmt(sandboxed.bare)} / ${fmt(plain.bare)} ms = +${fmt(sandboxed.bare - plain.bare)} ms (${(sandboxed.bare / plain.bare).toFixed(2)}x)`,
);

const noDocker = await dockerAvailable();
if (noDocker) console.log(`docker        skipped: ${noDocker}`);
else await bench('docker', { backend: 'docker', docker: { image: await ensureTestImage() } }, cwd);

const noSsh = sshdAvailable();
if (noSsh) console.log(`ssh           skipped: ${noSsh}`);
else {
  const sshd = await startSshd();
  try {
    await bench(
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
  } finally {
    await sshd.dispose();
  }
}
