// Runs one execute_code program in a task's terminal environment: writes it and its generated client into a
// temporary directory there, starts the interpreter with its standard input kept open, serves the tool requests
// it prints, and removes the directory afterwards. Worker-only.
import { randomBytes } from 'node:crypto';
import { HeadTailBuffer } from '../environments/output-buffer.js';
import type { ShellEnvironment } from '../environments/shell-environment.js';
import { shQuote } from '../environments/shell-scripts.js';
import { EnvironmentError } from '../environments/types.js';
import type { CallableTool } from './callable-tools.js';
import { javascriptClient } from './client-javascript.js';
import { pythonClient } from './client-python.js';
import { newToken, responseLine, RpcParser, type RpcEvent, type RpcRequest } from './rpc.js';

export type Language = 'python' | 'javascript';

interface ProgramRequest {
  language: Language;
  code: string;
  timeoutSeconds: number;
  /** Interpreter commands (code_execution.python / .node). */
  python: string;
  node: string;
  /** The tools the generated client offers. */
  tools: readonly CallableTool[];
  /** Answers one request with the value the program receives (never throws for the program's mistakes). */
  serve: (request: RpcRequest, signal: AbortSignal) => Promise<unknown>;
  /** Bytes of program output kept (start and end). */
  keepBytes: number;
  signal?: AbortSignal;
  onOutput?: (text: string) => void;
}

interface ProgramResult {
  exitCode: number | null;
  /** The program's own output, requests taken out (raw: not yet cleaned or capped). */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  requests: number;
  /** What the environment's own enforcement did while it ran (a limit reached, a protected file moved out). */
  enforced?: string[];
}

const SETUP_TIMEOUT_SECONDS = 60;

async function writeFile(env: ShellEnvironment, path: string, content: string): Promise<void> {
  const r = await env.run({ command: `cat > ${shQuote(path)}`, stdin: content, timeoutSeconds: SETUP_TIMEOUT_SECONDS });
  if (r.exitCode !== 0) {
    throw new EnvironmentError(
      'Environment.Unsupported',
      env.backend,
      `could not write the program to ${path} in the environment: ${r.output.trim()}`,
    );
  }
}

export async function runProgram(env: ShellEnvironment, req: ProgramRequest): Promise<ProgramResult> {
  const token = newToken();
  const dir = `/tmp/tether-code-${randomBytes(6).toString('hex')}`;
  const python = req.language === 'python';
  const program = `${dir}/${python ? 'prog.py' : 'prog.mjs'}`;
  const mkdir = await env.run({ command: `mkdir -p ${shQuote(dir)}`, timeoutSeconds: SETUP_TIMEOUT_SECONDS });
  if (mkdir.exitCode !== 0) {
    throw new EnvironmentError(
      'Environment.Unsupported',
      env.backend,
      `could not make ${dir} in the environment: ${mkdir.output.trim()}`,
    );
  }
  try {
    await writeFile(
      env,
      `${dir}/${python ? 'tether_tools.py' : 'tether_tools.mjs'}`,
      python ? pythonClient(token, req.tools) : javascriptClient(token, req.tools),
    );
    await writeFile(env, program, req.code);
    return await serveProgram(env, req, token, `${python ? req.python : req.node} ${shQuote(program)}`);
  } finally {
    await env.run({ command: `rm -rf ${shQuote(dir)}`, timeoutSeconds: SETUP_TIMEOUT_SECONDS }).catch(() => undefined);
  }
}

async function serveProgram(
  env: ShellEnvironment,
  req: ProgramRequest,
  token: string,
  command: string,
): Promise<ProgramResult> {
  const parser = new RpcParser(token);
  const out = new HeadTailBuffer(req.keepBytes);
  let requests = 0;
  // Tool calls still running when the program ends (killed at its timeout) are cancelled with it.
  const calls = new AbortController();
  const cancelCalls = (): void => calls.abort();
  req.signal?.addEventListener('abort', cancelCalls, { once: true });
  // One request at a time, in order: the program waits for each answer anyway.
  let queue: Promise<void> = Promise.resolve();
  const running = env.launch({
    command,
    timeoutSeconds: req.timeoutSeconds,
    keepStdinOpen: true,
    signal: req.signal,
    // Output as it is made, so that a program killed at its timeout still shows what it printed.
    env: { PYTHONUNBUFFERED: '1' },
    onOutput: (chunk) => handle(parser.push(chunk)),
  });
  const answer = (id: number, value: unknown): void => {
    try {
      running.write(responseLine(id, value));
    } catch {
      // The program is gone; its result tells how it ended.
    }
  };
  function handle(events: RpcEvent[]): void {
    for (const e of events) {
      if (e.kind === 'output') {
        out.push(Buffer.from(e.text, 'utf8'));
        req.onOutput?.(e.text);
      } else if (e.kind === 'malformed') {
        requests += 1;
        const id = e.id;
        if (id !== undefined) queue = queue.then(() => answer(id, { error: e.error }));
      } else {
        requests += 1;
        const r = e.request;
        queue = queue.then(async () => {
          let value: unknown;
          try {
            value = calls.signal.aborted ? { error: 'the program has ended' } : await req.serve(r, calls.signal);
          } catch (err) {
            value = { error: `tool ${r.tool} failed: ${(err as Error).message}` };
          }
          answer(r.id, value);
        });
      }
    }
  }
  const result = await running.result.finally(() => {
    calls.abort();
    req.signal?.removeEventListener('abort', cancelCalls);
  });
  handle(parser.end());
  running.end();
  await queue;
  return {
    exitCode: result.exitCode,
    output: out.text(),
    timedOut: result.timedOut,
    cancelled: result.cancelled,
    requests,
    ...(result.enforced ? { enforced: result.enforced } : {}),
  };
}
