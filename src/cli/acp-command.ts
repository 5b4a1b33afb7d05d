// `tether acp`: tether as an Agent Client Protocol agent on standard input/output, for editors. Standard output
// carries JSON-RPC only; logs go to the log file. The process embeds a worker for ACP runs. Worker-only.
import { Readable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { Command } from 'commander';
import { acpAgent } from '../acp/agent.js';
import { EditorMcpServers } from '../acp/mcp-servers.js';
import { loadConfig } from '../config/config.js';
import { getLogger, type Logger } from '../logging/logger.js';
import { mcpToolsetName } from '../toolsets/resolve.js';
import { closeTools, createWorker, installRuntimeLogging } from '../worker.js';
import { atCommandEnd } from './command-end.js';
import { chooseModel, MODEL_OPTION_HELP } from './run-options.js';
import { connectClient, ensureTemporal } from './temporal-client.js';

/**
 * JSON-RPC gets the real standard output; anything else that would write there (a library's console.log, a stray
 * process.stdout.write) goes to the log file instead, so it cannot corrupt the protocol stream.
 */
function claimStdout(log: Logger): WritableStream<Uint8Array> {
  const write = process.stdout.write.bind(process.stdout);
  const divert = (...args: unknown[]): void => log.info({ diverted: true }, args.map(String).join(' '));
  console.log = divert;
  console.info = divert;
  console.debug = divert;
  process.stdout.write = ((chunk: string | Uint8Array): boolean => {
    divert(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  return new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => void write(chunk, (err) => (err ? reject(err) : resolve()))),
  });
}

interface AcpOptions {
  model?: string;
  queue?: string;
}

async function serveAcp(opts: AcpOptions): Promise<void> {
  const log = getLogger();
  const output = claimStdout(log);
  const config = loadConfig();
  const base = await ensureTemporal((line) => log.info({}, line));
  // ACP runs have a queue of their own: an editor's MCP servers exist only in the `tether acp` processes.
  const settings = { ...base, taskQueue: opts.queue ?? `${base.taskQueue}-acp` };
  const { client, close } = await connectClient(settings);
  const mcp = new EditorMcpServers(log);
  const configured = Object.entries(config.mcp_servers)
    .filter(([, c]) => c.enabled)
    .map(([name]) => mcpToolsetName(name));
  const app = acpAgent({
    client,
    settings,
    log,
    model: () => chooseModel(opts.model),
    mcp,
    toolsets: ['tether-acp', ...configured],
  });
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  const connection = app.connect(ndJsonStream(output, input));
  log.info({ taskQueue: settings.taskQueue }, 'tether acp: serving on standard input/output');
  installRuntimeLogging();
  try {
    const { worker, connection: native } = await createWorker({
      settings,
      config,
      log,
      shutdownGraceTime: '5 seconds',
    });
    try {
      // The editor going away ends this process; the runs wait on the server for the next ACP process.
      await worker.runUntil(connection.closed);
    } finally {
      await native.close();
    }
  } finally {
    connection.close();
    await mcp.close();
    await close();
    log.info({}, 'tether acp: the editor closed the connection');
  }
}

export function addAcpCommand(program: Command): void {
  program
    .command('acp')
    .description('Serve as an Agent Client Protocol (ACP) agent on standard input/output, for editors (Zed, ...)')
    .option('--model <name>', MODEL_OPTION_HELP)
    .option('--queue <name>', 'task queue of the runs it starts (default: the task queue with -acp added)')
    .action((opts: AcpOptions) => {
      atCommandEnd(closeTools); // the embedded worker's MCP connections and terminal environments
      return serveAcp(opts);
    });
}
