// `tether codec-server`: serves the Temporal UI's remote codec endpoint with the workers' payload keys, so the UI and
// `temporal workflow show --codec-endpoint` show encrypted histories as text. Loopback by default; anywhere else only
// with a token. Worker-only.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { lazyLogger } from '../logging/logger.js';
import { payloadKeyring } from '../payloads/encryption-settings.js';
import { KEY_FILE_SETTING } from '../payloads/keyring.js';
import { temporalSettings } from '../temporal/settings.js';
import { codecHandler } from './codec-server.js';
import { DEFAULT_UI_PORT } from './dev-server-start.js';
import { CliError } from './errors.js';
import { listen, portOption, send } from './gateway-http.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/i;
const DEFAULT_PORT = 8089;

function readToken(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new CliError(`--token-file ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 2);
  }
  if (token.length < 16 || /\s/.test(token))
    throw new CliError(`--token-file ${path}: the token must be one word of at least 16 characters`, 2);
  return token;
}

const collect = (value: string, prev: string[]): string[] => [...prev, value];

export function addCodecServerCommand(program: Command): void {
  program
    .command('codec-server')
    .description(
      "Serve the Temporal UI's remote codec endpoint (POST /encode, /decode) with temporal.encryption.key_file, so encrypted runs show as text",
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', `port (0 picks a free one)`, String(DEFAULT_PORT))
    .option(
      '--origin <origin>',
      `a browser origin allowed to call it, repeatable (default the local UI: http://localhost:${DEFAULT_UI_PORT}, http://127.0.0.1:${DEFAULT_UI_PORT})`,
      collect,
      [],
    )
    .option('--token-file <path>', 'require this token: Authorization: Bearer <token>, or as the first path segment')
    .action(async (opts: { host: string; port: string; origin: string[]; tokenFile?: string }) => {
      const keyring = payloadKeyring();
      if (!keyring)
        throw new CliError(`${KEY_FILE_SETTING} is not set in config.yaml: there is nothing to encode or decode`, 2);
      const token = opts.tokenFile ? readToken(opts.tokenFile) : undefined;
      const loopback = LOOPBACK.test(opts.host);
      if (!loopback && !token)
        throw new CliError(
          `--host ${opts.host} would let anyone who reaches it read every run: give --token-file, or keep 127.0.0.1`,
          2,
        );
      const origins = opts.origin.length
        ? opts.origin.map((o) => o.replace(/\/+$/, ''))
        : [`http://localhost:${DEFAULT_UI_PORT}`, `http://127.0.0.1:${DEFAULT_UI_PORT}`];
      const handle = codecHandler({ keyring, origins, token, namespace: temporalSettings().namespace });
      const server = createServer((req, res) => {
        handle(req, res).catch((err: unknown) => {
          lazyLogger.error({ err: String(err), url: req.url }, 'codec request failed');
          send(res, 500, { error: 'internal error; see the log' }, true);
        });
      });
      server.on('clientError', (_err, socket) => socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n'));
      await listen(server, opts.host, portOption(opts.port, '--port'), '--host', '--port');
      const { port } = server.address() as AddressInfo;
      const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      process.stdout.write(
        `tether codec-server on http://${shown}:${port}${token ? ' (token required)' : ''} · key ${keyring.current.id} encrypts, ${keyring.byId.size} decrypt · origins ${origins.join(', ')}\n`,
      );
      // Until Ctrl-C or SIGTERM (embedded-worker.ts has the same, but importing it would load the worker).
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
}
