// `tether serve`: the approval gateway. An HTTP endpoint that takes decisions signed with the shared secret
// (approvals.secret) and hands them to the run; unsigned, forged, stale and replayed ones are refused. Worker-only.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { NonceBook, SIGNATURE_HEADER, verifySignedDecision } from '../approval/signature.js';
import { loadConfig } from '../config/config.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { sendDecision } from './decide.js';
import { CliError, positiveIntOption } from './errors.js';
import { withTemporal } from './temporal-client.js';
import { interruptSignal } from './embedded-worker.js';

const MAX_BODY = 64 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`body larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(payload)}\n`);
}

export function gatewayHandler(client: Client, settings: TemporalSettings, secret: string) {
  const nonces = new NonceBook();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { ok: true });
    if (req.method !== 'POST' || req.url !== '/approvals/decision') return send(res, 404, { error: `no route ${req.method} ${req.url} (POST /approvals/decision)` });
    let body: string;
    try {
      body = await readBody(req);
    } catch (err) {
      return send(res, 413, { error: (err as Error).message });
    }
    const header = req.headers[SIGNATURE_HEADER];
    const v = verifySignedDecision(body, Array.isArray(header) ? header[0] : header, secret, nonces);
    if (!v.ok) return send(res, v.status, { error: v.error });
    const { workflowId, timestamp: _t, nonce: _n, ...decision } = v.decision;
    try {
      const out = await sendDecision(client, settings, workflowId, { ...decision, by: decision.by ?? 'gateway' });
      if (out.status === 'rejected') return send(res, 409, { error: out.reason });
      return send(res, out.status === 'applied' ? 200 : 202, { status: out.status, workflowId, approvalId: decision.approvalId, choice: decision.choice });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return send(res, 404, { error: `no such run: ${workflowId}` });
      return send(res, 502, { error: `could not reach the run: ${(err as Error).message}` });
    }
  };
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the approval gateway: POST /approvals/decision with a body signed by approvals.secret (HMAC-SHA256)')
    .option('--host <host>', 'address to listen on (default approvals.serve.host, 127.0.0.1)')
    .option('--port <port>', 'port (default approvals.serve.port, 8787; 0 picks a free one)')
    .action(async (opts: { host?: string; port?: string }) => {
      const config = loadConfig();
      const secret = config.approvals.secret;
      if (!secret) throw new CliError('approvals.secret is not set in config.yaml: the gateway refuses to accept unsigned decisions', 2);
      const host = opts.host ?? config.approvals.serve.host;
      const port = opts.port === '0' ? 0 : (positiveIntOption(opts.port, '--port') ?? config.approvals.serve.port);
      await withTemporal(async (client, settings) => {
        const handle = gatewayHandler(client, settings, secret);
        const server = createServer((req, res) => void handle(req, res));
        await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
        const { port: actual } = server.address() as AddressInfo;
        process.stdout.write(`tether gateway listening on http://${host}:${actual} · POST /approvals/decision\n`);
        const stop = interruptSignal();
        await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
        stop.release();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });
    });
}
