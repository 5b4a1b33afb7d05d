// Test double: a fake Daytona API and toolbox on loopback, enough for the real @daytonaio/sdk to create, stream
// from and delete sandboxes; commands run as real local `sh -c` processes in a temp dir per sandbox.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';

// ---- The server half of a WebSocket (RFC 6455): send-only, enough for the SDK's log stream ----
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

interface FakeSocket {
  send(data: Buffer): void;
  /** A clean close (status 1000), as a server sends when the stream is over. */
  close(): void;
  /** Drops the TCP connection without a close frame, as when a sandbox dies under a stream. */
  abort(): void;
  readonly closed: boolean;
}

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  let header: Buffer;
  if (len < 126) header = Buffer.from([0x80 | opcode, len]);
  else if (len < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([header, payload]);
}

/** Completes the upgrade handshake and returns the socket; the client's frames (its close reply) are ignored. */
function acceptWebSocket(req: IncomingMessage, socket: Duplex): FakeSocket {
  const key = req.headers['sec-websocket-key'];
  const accept = createHash('sha1')
    .update(`${String(key)}${GUID}`)
    .digest('base64');
  socket.write(
    [
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Accept: ${accept}`,
      '',
      '',
    ].join('\r\n'),
  );
  let closed = false;
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  socket.on('close', () => {
    closed = true;
  });
  return {
    send(data) {
      if (!closed) socket.write(frame(0x2, data));
    },
    close() {
      if (closed) return;
      closed = true;
      const status = Buffer.alloc(2);
      status.writeUInt16BE(1000, 0);
      socket.write(frame(0x8, status));
      socket.end();
    },
    abort() {
      closed = true;
      socket.destroy();
    },
    get closed() {
      return closed;
    },
  };
}

/** Answers an upgrade with a plain HTTP error, as an API does for a refused or unknown stream. */
function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ statusCode: status, message });
  socket.end(
    `HTTP/1.1 ${status} Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

// ---- The fake API ----

export interface FakeSandbox {
  id: string;
  state: string;
  labels: Record<string, string>;
  env: Record<string, string>;
  dir: string;
  /** What create() asked for, so tests can check the transport's request. */
  request: Record<string, unknown>;
  sessions: Map<string, Map<string, FakeCommand>>;
}

interface FakeCommand {
  id: string;
  command: string;
  exitCode?: number;
  /** Output as the daemon labels it: 1 stdout, 2 stderr. */
  chunks: { stream: 1 | 2; data: Buffer }[];
  watchers: FakeSocket[];
  child: ChildProcess;
}

const STDOUT = Buffer.from([1, 1, 1]);
const STDERR = Buffer.from([2, 2, 2]);

export interface FakeDaytona {
  /** The API base, as DAYTONA_API_URL. */
  apiUrl: string;
  apiKey: string;
  sandboxes: Map<string, FakeSandbox>;
  /** Admin hook: the sandbox stops (its processes die, its streams drop) but still exists. */
  stopSandbox(id: string): void;
  /** Admin hook: the sandbox disappears altogether. */
  removeSandbox(id: string): void;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function fail(res: ServerResponse, status: number, message: string): void {
  json(res, status, { statusCode: status, message, error: message });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export async function startFakeDaytona(opts: { apiKey?: string } = {}): Promise<FakeDaytona> {
  const apiKey = opts.apiKey ?? 'test-daytona-key';
  const sandboxes = new Map<string, FakeSandbox>();
  const root = await mkdtemp(join(tmpdir(), 'fake-daytona-'));
  let base = '';
  let seq = 0;

  const dto = (s: FakeSandbox): Record<string, unknown> => ({
    id: s.id,
    organizationId: 'org-test',
    name: s.id,
    user: 'daytona',
    env: s.env,
    labels: s.labels,
    public: false,
    networkBlockAll: false,
    target: 'us',
    cpu: 1,
    gpu: 0,
    memory: 1,
    disk: 3,
    state: s.state,
    autoStopInterval: s.request.autoStopInterval,
    toolboxProxyUrl: `${base}/toolbox`,
  });

  const stopProcesses = (s: FakeSandbox, abortStreams: boolean): void => {
    for (const commands of s.sessions.values())
      for (const cmd of commands.values()) {
        if (abortStreams) for (const w of cmd.watchers) w.abort();
        killTree(cmd.child);
      }
  };

  const execute = (s: FakeSandbox, commands: Map<string, FakeCommand>, line: string): FakeCommand => {
    seq += 1;
    // Like the daemon: the line is shell code, its input an open pipe nobody writes to.
    const child = spawn('sh', ['-c', line], {
      cwd: s.dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.dir, ...s.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const cmd: FakeCommand = { id: `cmd-${seq}`, command: line, chunks: [], watchers: [], child };
    const push = (stream: 1 | 2) => (data: Buffer) => {
      cmd.chunks.push({ stream, data });
      for (const w of cmd.watchers) w.send(Buffer.concat([stream === 1 ? STDOUT : STDERR, data]));
    };
    child.stdout.on('data', push(1));
    child.stderr.on('data', push(2));
    child.stdin.on('error', () => undefined);
    child.on('close', (code, signal) => {
      cmd.exitCode = code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);
      for (const w of cmd.watchers) w.close();
      cmd.watchers = [];
    });
    commands.set(cmd.id, cmd);
    return cmd;
  };

  const authorized = (req: IncomingMessage): boolean => req.headers.authorization === `Bearer ${apiKey}`;

  const handleApi = async (req: IncomingMessage, res: ServerResponse, parts: string[], url: URL): Promise<void> => {
    if (parts[0] !== 'sandbox') return fail(res, 404, `no route ${req.method} ${url.pathname}`);
    const id = parts[1];
    if (req.method === 'POST' && id === undefined) {
      const body = await readJson(req);
      seq += 1;
      const sid = `sbx-${seq}`;
      const dir = join(root, sid);
      await mkdir(dir, { recursive: true });
      const sandbox: FakeSandbox = {
        id: sid,
        state: 'started',
        labels: (body.labels ?? {}) as Record<string, string>,
        env: (body.env ?? {}) as Record<string, string>,
        dir,
        request: body,
        sessions: new Map(),
      };
      sandboxes.set(sid, sandbox);
      return json(res, 200, dto(sandbox));
    }
    if (req.method === 'GET' && id === undefined) {
      const wanted = JSON.parse(url.searchParams.get('labels') ?? '{}') as Record<string, string>;
      const items = [...sandboxes.values()]
        .filter((s) => Object.entries(wanted).every(([k, v]) => s.labels[k] === v))
        .map(dto);
      return json(res, 200, { items, nextCursor: null });
    }
    const sandbox = id === undefined ? undefined : sandboxes.get(id);
    if (!sandbox) return fail(res, 404, `Sandbox with ID or name ${id} not found`);
    if (req.method === 'GET' && parts.length === 2) return json(res, 200, dto(sandbox));
    if (req.method === 'DELETE' && parts.length === 2) {
      stopProcesses(sandbox, true);
      sandboxes.delete(sandbox.id);
      sandbox.state = 'destroying';
      return json(res, 200, dto(sandbox));
    }
    return fail(res, 404, `no route ${req.method} ${url.pathname}`);
  };

  const handleToolbox = async (req: IncomingMessage, res: ServerResponse, parts: string[], url: URL): Promise<void> => {
    const sandbox = sandboxes.get(parts[0] ?? '');
    if (!sandbox) return fail(res, 404, 'sandbox not found');
    if (sandbox.state !== 'started') return fail(res, 400, `sandbox is ${sandbox.state}`);
    const route = parts.slice(1);
    if (req.method === 'GET' && route.join('/') === 'user-home-dir') return json(res, 200, { dir: sandbox.dir });
    if (route[0] !== 'process' || route[1] !== 'session')
      return fail(res, 404, `no route ${req.method} ${url.pathname}`);
    if (req.method === 'POST' && route.length === 2) {
      const body = await readJson(req);
      sandbox.sessions.set(String(body.sessionId), new Map());
      res.writeHead(201).end();
      return;
    }
    const commands = sandbox.sessions.get(route[2] ?? '');
    if (!commands) return fail(res, 404, `session ${route[2]} not found`);
    if (req.method === 'DELETE' && route.length === 3) {
      for (const cmd of commands.values()) killTree(cmd.child);
      sandbox.sessions.delete(route[2] ?? '');
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'POST' && route[3] === 'exec') {
      const body = await readJson(req);
      if (body.runAsync !== true) return fail(res, 400, 'the fake runs only runAsync commands');
      return json(res, 200, { cmdId: execute(sandbox, commands, String(body.command)).id });
    }
    const cmd = commands.get(route[4] ?? '');
    if (req.method === 'GET' && route[3] === 'command' && cmd && route.length === 5)
      return json(res, 200, { id: cmd.id, command: cmd.command, exitCode: cmd.exitCode });
    return fail(res, 404, `no route ${req.method} ${url.pathname}`);
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const parts = url.pathname.split('/').filter(Boolean);
    if (!authorized(req)) return fail(res, 401, 'Invalid credentials');
    const handler = parts[0] === 'api' ? handleApi : parts[0] === 'toolbox' ? handleToolbox : undefined;
    if (!handler) return fail(res, 404, `no route ${url.pathname}`);
    handler(req, res, parts.slice(1), url).catch((error: unknown) => fail(res, 500, String(error)));
  });

  // The log stream: /toolbox/{sandbox}/process/session/{session}/command/{cmd}/logs?follow=true
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [top, sid, p1, p2, session, p3, cmdId, p4] = url.pathname.split('/').filter(Boolean);
    if (!authorized(req)) return refuseUpgrade(socket, 401, 'Invalid credentials');
    const sandbox = sandboxes.get(sid ?? '');
    const cmd = sandbox?.sessions.get(session ?? '')?.get(cmdId ?? '');
    if (
      top !== 'toolbox' ||
      p1 !== 'process' ||
      p2 !== 'session' ||
      p3 !== 'command' ||
      p4 !== 'logs' ||
      !sandbox ||
      !cmd
    )
      return refuseUpgrade(socket, 404, 'not found');
    const ws = acceptWebSocket(req, socket);
    // Like the daemon's log file: a late follower gets everything from the start.
    for (const c of cmd.chunks) ws.send(Buffer.concat([c.stream === 1 ? STDOUT : STDERR, c.data]));
    if (cmd.exitCode !== undefined) ws.close();
    else cmd.watchers.push(ws);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  base = `http://127.0.0.1:${address.port}`;

  return {
    apiUrl: `${base}/api`,
    apiKey,
    sandboxes,
    stopSandbox(id) {
      const s = sandboxes.get(id);
      if (!s) return;
      s.state = 'stopped';
      stopProcesses(s, true);
    },
    removeSandbox(id) {
      const s = sandboxes.get(id);
      if (!s) return;
      stopProcesses(s, true);
      sandboxes.delete(id);
    },
    async close() {
      for (const s of sandboxes.values()) stopProcesses(s, true);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
