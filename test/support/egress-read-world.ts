// The world the egress-proxy attack tests run in: HTTPS stand-ins on 127.0.0.1 for outside hosts (a private CA made
// with openssl, trusted upstream through egress.upstream_ca_file), a git forge, lenient servers that take more headers
// than Node, the local sandbox configured with read-only, path-limited and credential hosts, and a runner for raw
// requests sent from inside the sandbox (test/environments/egress-raw-requests.py). No worker: what the policy does
// not allow is refused (nobody to ask).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { call, configure, dir, type Result } from './local-sandbox.js';
import { gitSmartHttp, makeCertificate, resolveAll, startStandIn, type StandIn } from './egress-stand-in.js';

/** What reached a stand-in. */
export interface Seen {
  where: string;
  servername: string | undefined;
  method: string;
  url: string;
  raw: string[];
  body: number;
  text: string;
}
export type Case = {
  name: string;
  kind: 'raw' | 'tls' | 'socks';
  send?: string;
  connect?: string;
  connectHeaders?: string;
  sni?: string | null;
  alpn?: string[];
  seconds?: number;
  request?: string;
  session_in?: string;
  session_out?: string;
  nocheck?: boolean;
};
export type Out = {
  name: string;
  connect?: string;
  reply?: string;
  error?: string;
  socks?: string;
  alpn?: string;
  reused?: boolean;
};

/** Sets the world up around the calling test file (its beforeAll/afterAll); `name` names its directory and tasks. */
export function egressReadWorld(name: string) {
  const cwd = dir(`tether-${name}-`);
  let n = 0;
  const task = (): string => `${name}-${process.pid}-${++n}`;
  const sh = (taskId: string, command: string): Promise<Result> => call('terminal', taskId, cwd, { command });
  const TOKEN = `tok_${randomBytes(16).toString('hex')}`;

  const arrivals: Seen[] = [];
  function recorder(where: string, inner?: (req: IncomingMessage, res: ServerResponse) => void) {
    return (req: IncomingMessage, res: ServerResponse): void => {
      const entry: Seen = {
        where,
        servername: (req.socket as TLSSocket & { servername?: string }).servername || undefined,
        method: req.method ?? '',
        url: req.url ?? '',
        raw: req.rawHeaders,
        body: 0,
        text: '',
      };
      arrivals.push(entry);
      if (inner && /\.git\//.test(req.url ?? '')) return inner(req, res);
      req.on('data', (c: Buffer) => {
        entry.body += c.length;
        if (entry.text.length < 8192) entry.text += c.toString('latin1');
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        // A server that shows what it was sent (a paste, an issue comment, an echo API) for /…capture….
        const shown = (req.url ?? '').includes('capture') ? ` body: ${entry.text}` : '';
        res.end(`hello from ${where} ${req.headers.host ?? ''}${req.url ?? ''} (${entry.body} bytes)${shown}\n`);
      });
    };
  }

  let stand: StandIn;
  let plain: StandIn;
  let secret: StandIn;
  /** An HTTPS server that, like nginx or Apache, takes more than Node's 2000 headers and 16 KiB of them. */
  let lenient: HttpsServer;
  /** The same over plain HTTP. */
  let lenientPlain: HttpServer;

  const READ_ONLY = ['registry.example.test', 'forge.example.test', 'credread.example.test'];
  const HTTPS_NAMES = [
    ...READ_ONLY,
    'paths.example.test',
    'api.example.test',
    'other.example.test',
    'ok.wild.test',
    'denied.wild.test',
  ];

  beforeAll(async () => {
    makeCertificate(cwd, ['ok.wild.test', 'denied.wild.test']);
    execFileSync('git', ['init', '-q', '--bare', join(cwd, 'forge', 'repo.git')]);
    const seed = join(cwd, 'seed');
    const git = (args: string[], at = cwd): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
        cwd: at,
        encoding: 'utf8',
      });
    git(['init', '-q', '-b', 'main', seed]);
    git(['commit', '-q', '--allow-empty', '-m', 'first commit'], seed);
    git(['push', '-q', join(cwd, 'forge', 'repo.git'), 'main'], seed);
    execFileSync('git', ['-C', join(cwd, 'forge', 'repo.git'), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
    stand = await startStandIn(recorder('stand', gitSmartHttp(join(cwd, 'forge'))), {
      cert: join(cwd, 'ca.pem'),
      key: join(cwd, 'stand-in.key'),
    });
    plain = await startStandIn(recorder('plain'));
    secret = await startStandIn(recorder('secret'));
    lenient = createHttpsServer(
      { cert: readFileSync(join(cwd, 'ca.pem')), key: readFileSync(join(cwd, 'stand-in.key')), maxHeaderSize: 1 << 20 },
      recorder('lenient'),
    );
    lenient.maxHeadersCount = 0;
    await new Promise<void>((r) => lenient.listen(0, '127.0.0.1', r));
    lenientPlain = createHttpServer({ maxHeaderSize: 1 << 20 }, recorder('lenient-plain'));
    lenientPlain.maxHeadersCount = 0;
    await new Promise<void>((r) => lenientPlain.listen(0, '127.0.0.1', r));
    copyFileSync(new URL('../environments/egress-raw-requests.py', import.meta.url), join(cwd, 'rt.py'));
    process.env.TETHER_REDTEAM_TOKEN = TOKEN;
    await configure({
      sandbox: {
        egress: {
          allow: [
            { host: 'registry.example.test', access: 'read' },
            { host: 'forge.example.test', access: 'read' },
            { host: 'credread.example.test', access: 'read' },
            { host: 'lenient.example.test', access: 'read' },
            { host: 'plain-lenient.example.test', access: 'read' },
            { host: 'paths.example.test', access: 'write', paths: ['/ok/'] },
            { host: 'paths.example.test', access: 'read', paths: ['/anywhere'] },
            'api.example.test',
            'other.example.test',
            'plaincred.example.test',
            { host: 'plain-read.example.test', access: 'read' },
            { host: 'plain-paths.example.test', access: 'read', paths: ['/anywhere'] },
            '*.wild.test',
          ],
          deny: ['denied.wild.test'],
          credentials: [
            { host: 'api.example.test', value: 'Bearer ${TETHER_REDTEAM_TOKEN}' },
            { host: 'credread.example.test', value: 'Bearer ${TETHER_REDTEAM_TOKEN}' },
            { host: 'lenient.example.test', value: 'Bearer ${TETHER_REDTEAM_TOKEN}' },
            { host: 'plaincred.example.test', value: 'Bearer ${TETHER_REDTEAM_TOKEN}' },
          ],
          upstream_ca_file: join(cwd, 'ca.pem'),
          resolve: {
            ...resolveAll(HTTPS_NAMES, stand),
            ...resolveAll(['plain-read.example.test', 'plaincred.example.test', 'plain-paths.example.test'], plain),
            ...resolveAll(['secret.example.test'], secret),
            'lenient.example.test': `127.0.0.1:${(lenient.address() as AddressInfo).port}`,
            'plain-lenient.example.test': `127.0.0.1:${(lenientPlain.address() as AddressInfo).port}`,
          },
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await environmentManager().closeAll();
    await stand.close();
    await plain.close();
    await secret.close();
    lenient.closeAllConnections();
    await new Promise((r) => lenient.close(r));
    lenientPlain.closeAllConnections();
    await new Promise((r) => lenientPlain.close(r));
    delete process.env.TETHER_REDTEAM_TOKEN;
  });

  const hex = (s: string): string => Buffer.from(s, 'latin1').toString('hex');
  let batch = 0;
  async function run(cases: Case[]): Promise<Record<string, Out>> {
    const file = `cases-${++batch}.json`;
    writeFileSync(
      join(cwd, file),
      JSON.stringify(cases.map((c) => ({ ...c, send: c.send === undefined ? undefined : hex(c.send) }))),
    );
    const r = await sh(task(), `python3 rt.py ${file}`);
    expect(r.exit_code, r.output).toBe(0);
    const outs = JSON.parse(r.output!.trim().split('\n').at(-1)!) as Out[];
    return Object.fromEntries(outs.map((o) => [o.name, o]));
  }
  const tls = (name: string, connect: string, send: string, more: Partial<Case> = {}): Case => ({
    name,
    kind: 'tls',
    connect,
    send,
    ...more,
  });
  const status = (o: Out | undefined): string => (o?.reply ?? o?.error ?? o?.connect ?? '').split('\r\n')[0]!;
  const arrived = (pred: (s: Seen) => boolean): Seen[] => arrivals.filter(pred);
  /** The port of the stand-in no entry allows (known once the world is up). */
  const secretPort = (): number => secret.port;
  return { cwd, TOKEN, arrivals, task, sh, run, tls, status, arrived, secretPort };
}
