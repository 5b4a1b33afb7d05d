// Runs `tether worker` (the compiled CLI) as a separate process, so a test can SIGKILL it like a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath } from './cli.js';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn('node', [cliPath, 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 60_000;
  while (!out.includes('tether worker ·')) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}: ${out}`);
    if (Date.now() > deadline) throw new Error(`worker did not start in time: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}
