// `tether serve`: the approval gateway. An HTTP endpoint that takes decisions signed with the shared secret
// (approvals.secret) and hands them to the run (unsigned, forged, stale and replayed ones are refused), and the
// approval inbox for a browser under /inbox (src/inbox). Worker-only.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SIGNATURE_HEADER, verifySignedDecision, type Nonces } from '../approval/signature.js';
import { SqliteNonceBook } from '../approval/nonce-store.js';
import { loadConfig } from '../config/config.js';
import { lazyLogger } from '../logging/logger.js';
import type { TemporalSettings } from '../temporal/settings.js';
import { sendDecision } from '../decisions/decide.js';
import { listen, portOption, send } from './gateway-http.js';
import { MAX_BODY, readBody } from '../decisions/read-body.js';
import { withTemporal } from './temporal-client.js';
import { interruptSignal } from './embedded-worker.js';
import { listApprovalsRoute } from './gateway-listing.js';
import { InboxAuth } from '../inbox/auth.js';
import { inboxRoutes } from '../inbox/routes.js';
import { inboxToken } from '../inbox/token.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/i;

const notFound = (req: IncomingMessage): { error: string } => ({
  error: `no route ${req.method} ${req.url} (POST /approvals/decision, GET /approvals, GET /inbox)`,
});

function gatewayHandler(
  client: Client,
  settings: TemporalSettings,
  secret: string | undefined,
  nonces: Nonces,
  inbox: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { ok: true });
    if (await inbox(req, res)) return;
    const listing = req.method === 'GET' && req.url === '/approvals';
    if (!listing && (req.method !== 'POST' || req.url !== '/approvals/decision')) return send(res, 404, notFound(req));
    if (!secret)
      return send(res, 503, { error: 'approvals.secret is not set in config.yaml: signed decisions are turned off' });
    if (listing) return listApprovalsRoute(req, res, client, secret);
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
      return send(res, out.status === 'applied' ? 200 : 202, {
        status: out.status,
        workflowId,
        approvalId,
        choice,
        // What the choice gave: a wider one than the approval allows is narrowed (once only, or session for always).
        ...(out.status === 'applied' && out.applies ? { applies: out.applies } : {}),
      });
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
      'Serve the approval inbox (decide from a browser) and the signed approvals API (GET /approvals, POST /approvals/decision)',
    )
    .option('--host <host>', 'address to listen on (default approvals.serve.host, 127.0.0.1)')
    .option('--port <port>', 'port (default approvals.serve.port, 8787; 0 picks a free one)')
    .option('--new-token', 'make a new inbox login token (links printed before stop working)')
    .action(async (opts: { host?: string; port?: string; newToken?: boolean }) => {
      const config = loadConfig();
      const secret = config.approvals.secret;
      const token = inboxToken(opts.newToken ?? false);
      const host = opts.host ?? config.approvals.serve.host;
      const hostFrom = opts.host === undefined ? 'approvals.serve.host' : '--host';
      const portFrom = opts.port === undefined ? 'approvals.serve.port' : '--port';
      const port = portOption(opts.port ?? config.approvals.serve.port, portFrom);
      const nonces = new SqliteNonceBook();
      try {
        await withTemporal(async (client, settings) => {
          // The cookie name needs the port, known only after listening: the routes are made then.
          let inbox: (req: IncomingMessage, res: ServerResponse) => Promise<boolean> = async () => false;
          const handle = gatewayHandler(client, settings, secret, nonces, (req, res) => inbox(req, res));
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
          const loopbackOnly = LOOPBACK.test(host);
          inbox = inboxRoutes({
            client,
            settings,
            auth: new InboxAuth(token, actual),
            loopbackOnly,
            checkpoints: config.checkpoints,
          });
          const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
          process.stdout.write(
            `tether gateway listening on http://${shown}:${actual} · POST /approvals/decision${secret ? '' : ' (off: approvals.secret is not set)'}\n` +
              `inbox: http://${shown}:${actual}/inbox?token=${token}\n`,
          );
          if (!loopbackOnly)
            process.stderr.write(
              `warning: listening on ${host}, not only this machine: anyone who can reach it and has the inbox link can decide approvals, over plain HTTP (put TLS in front, or keep the default 127.0.0.1)\n`,
            );
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
