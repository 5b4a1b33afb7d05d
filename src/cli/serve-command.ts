// `tether serve`: the approval gateway. An HTTP endpoint that takes decisions signed with the shared secret
// (approvals.secret) and hands them to the run; unsigned, forged, stale and replayed ones are refused. Worker-only.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SIGNATURE_HEADER, verifySignedDecision, type Nonces } from '../approval/signature.js';
import { SqliteNonceBook } from '../approval/nonce-store.js';
import { loadConfig } from '../config/config.js';
import { lazyLogger } from '../logging/logger.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { sendDecision } from './decide.js';
import { CliError } from './errors.js';
import { listen, MAX_BODY, portOption, readBody, send } from './gateway-http.js';
import { withTemporal } from './temporal-client.js';
import { interruptSignal } from './embedded-worker.js';
import { listApprovalsRoute } from './gateway-listing.js';

function gatewayHandler(client: Client, settings: TemporalSettings, secret: string, nonces: Nonces) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { ok: true });
    if (req.method === 'GET' && req.url === '/approvals') return listApprovalsRoute(req, res, client, secret);
    if (req.method !== 'POST' || req.url !== '/approvals/decision')
      return send(res, 404, {
        error: `no route ${req.method} ${req.url} (POST /approvals/decision, GET /approvals)`,
      });
    const body = await readBody(req);
    if (!body.ok) return send(res, 413, { error: `body larger than ${MAX_BODY} bytes` }, true);
    const header = req.headers[SIGNATURE_HEADER];
    const v = verifySignedDecision(body.text, Array.isArray(header) ? header[0] : header, secret, nonces);
    if (!v.ok) return send(res, v.status, { error: v.error });
    const { workflowId, approvalId, choice, reason, callId, argsDigest, by } = v.decision;
    // The signature proves the sender holds the secret, not who they are: a name in the body is recorded as
    // claimed (claimedBy), and `by` says only that the decision came through the gateway.
    const decision = {
      approvalId,
      choice,
      reason,
      callId,
      argsDigest,
      by: 'gateway',
      ...(by === undefined ? {} : { claimedBy: by }),
    };
    try {
      const out = await sendDecision(client, settings, workflowId, decision);
      if (out.status === 'rejected') return send(res, 409, { error: out.reason });
      return send(res, out.status === 'applied' ? 200 : 202, { status: out.status, workflowId, approvalId, choice });
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return send(res, 404, { error: `no such run: ${workflowId}` });
      return send(res, 502, { error: `could not reach the run: ${(err as Error).message}` });
    }
  };
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'Run the approval gateway: POST /approvals/decision with a body signed by approvals.secret (HMAC-SHA256); GET /approvals lists what waits',
    )
    .option('--host <host>', 'address to listen on (default approvals.serve.host, 127.0.0.1)')
    .option('--port <port>', 'port (default approvals.serve.port, 8787; 0 picks a free one)')
    .action(async (opts: { host?: string; port?: string }) => {
      const config = loadConfig();
      const secret = config.approvals.secret;
      if (!secret)
        throw new CliError(
          'approvals.secret is not set in config.yaml: the gateway refuses to accept unsigned decisions',
          2,
        );
      const host = opts.host ?? config.approvals.serve.host;
      const hostFrom = opts.host === undefined ? 'approvals.serve.host' : '--host';
      const portFrom = opts.port === undefined ? 'approvals.serve.port' : '--port';
      const port = portOption(opts.port ?? config.approvals.serve.port, portFrom);
      const nonces = new SqliteNonceBook();
      try {
        await withTemporal(async (client, settings) => {
          const handle = gatewayHandler(client, settings, secret, nonces);
          // Whatever a request does, the gateway answers it and stays up: an unexpected failure is a 500 and a log line.
          const server = createServer((req, res) => {
            handle(req, res).catch((err: unknown) => {
              lazyLogger.error({ err: String(err), url: req.url }, 'gateway request failed');
              send(res, 500, { error: 'internal error; see the gateway log' }, true);
            });
          });
          server.on('clientError', (_err, socket) =>
            socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n'),
          );
          await listen(server, host, port, hostFrom, portFrom);
          const { port: actual } = server.address() as AddressInfo;
          process.stdout.write(`tether gateway listening on http://${host}:${actual} · POST /approvals/decision\n`);
          const stop = interruptSignal();
          await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
          stop.release();
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        });
      } finally {
        nonces.close();
      }
    });
}
