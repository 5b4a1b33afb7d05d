// Test double: a fake Vercel Sandbox API on loopback, enough for the real @vercel/sandbox SDK to create sandboxes,
// run detached commands, stream their logs, wait for them and stop; commands run as real local processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants as osConstants } from 'node:os';

export interface FakeVercelSandbox {
  name: string;
  sessionId: string;
  status: 'running' | 'stopped';
  tags: Record<string, string>;
  env: Record<string, string>;
  /** The create request, so tests can check what the transport asked for. */
  request: Record<string, unknown>;
  commands: Map<string, FakeVercelCommand>;
  createdAt: number;
}

interface FakeVercelCommand {
  id: string;
  name: string;
  args: string[];
  cwd: string;
  startedAt: number;
  exitCode: number | null;
  logs: { stream: 'stdout' | 'stderr'; data: string }[];
  /** Called on new output, on exit and when the sandbox stops. */
  listeners: Set<() => void>;
  child: ChildProcess;
}

export interface FakeVercel {
  /** Pass as the transport's apiUrl (it stands in for https://vercel.com/api). */
  apiUrl: string;
  token: string;
  teamId: string;
  projectId: string;
  sandboxes: Map<string, FakeVercelSandbox>;
  /** Admin hook: the sandbox's session stops (timeout, crash): processes die, streams end with an error. */
  stopSandbox(name: string): void;
  /** Admin hook: the sandbox is deleted outright. */
  removeSandbox(name: string): void;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { error: { code, message } });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export async function startFakeVercel(): Promise<FakeVercel> {
  const token = 'test-vercel-token';
  const teamId = 'team_test';
  const projectId = 'prj_test';
  const sandboxes = new Map<string, FakeVercelSandbox>();
  let seq = 0;

  const sessionDto = (s: FakeVercelSandbox): Record<string, unknown> => ({
    id: s.sessionId,
    memory: 2048,
    vcpus: 1,
    region: 'iad1',
    runtime: String(s.request.runtime ?? 'node22'),
    timeout: Number(s.request.timeout ?? 300_000),
    status: s.status,
    requestedAt: s.createdAt,
    createdAt: s.createdAt,
    cwd: '/vercel/sandbox',
    updatedAt: Date.now(),
  });
  const sandboxDto = (s: FakeVercelSandbox): Record<string, unknown> => ({
    name: s.name,
    persistent: false,
    createdAt: s.createdAt,
    updatedAt: Date.now(),
    currentSessionId: s.sessionId,
    status: s.status,
    tags: s.tags,
  });
  const commandDto = (c: FakeVercelCommand, sessionId: string): Record<string, unknown> => ({
    id: c.id,
    name: c.name,
    args: c.args,
    cwd: c.cwd,
    sessionId,
    exitCode: c.exitCode,
    startedAt: c.startedAt,
  });

  const stopProcesses = (s: FakeVercelSandbox): void => {
    for (const c of s.commands.values()) {
      killTree(c.child);
      for (const l of c.listeners) l();
    }
  };

  const run = (s: FakeVercelSandbox, body: Record<string, unknown>): FakeVercelCommand => {
    seq += 1;
    const args = (body.args ?? []) as string[];
    const cwd = String(body.cwd ?? '/');
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...s.env,
      ...((body.env ?? {}) as Record<string, string>),
    };
    // Standard input is an open pipe nobody writes to: the API has no way to send any.
    const child = spawn(String(body.command), args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const cmd: FakeVercelCommand = {
      id: `cmd_${seq}`,
      name: String(body.command),
      args,
      cwd,
      startedAt: Date.now(),
      exitCode: null,
      logs: [],
      listeners: new Set(),
      child,
    };
    const notify = (): void => cmd.listeners.forEach((l) => l());
    const push = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
      cmd.logs.push({ stream, data: data.toString('utf8') });
      notify();
    };
    child.stdout.on('data', push('stdout'));
    child.stderr.on('data', push('stderr'));
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      cmd.logs.push({ stream: 'stderr', data: `${error.message}\n` });
      cmd.exitCode = 127;
      notify();
    });
    child.on('close', (code, signal) => {
      cmd.exitCode = code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);
      notify();
    });
    s.commands.set(cmd.id, cmd);
    return cmd;
  };

  const streamLogs = (res: ServerResponse, s: FakeVercelSandbox, cmd: FakeVercelCommand): void => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    let sent = 0;
    const pump = (): void => {
      while (sent < cmd.logs.length) res.write(`${JSON.stringify(cmd.logs[sent++])}\n`);
      if (s.status !== 'running' && cmd.exitCode === null) {
        res.end(
          `${JSON.stringify({ stream: 'error', data: { code: 'sandbox_stopped', message: 'The sandbox was stopped' } })}\n`,
        );
      } else if (cmd.exitCode !== null || s.status !== 'running') res.end();
      else return;
      cmd.listeners.delete(pump);
    };
    cmd.listeners.add(pump);
    res.on('close', () => cmd.listeners.delete(pump));
    pump();
  };

  const waitFor = (res: ServerResponse, s: FakeVercelSandbox, cmd: FakeVercelCommand): void => {
    const check = (): void => {
      if (cmd.exitCode !== null && s.status === 'running') json(res, 200, { command: commandDto(cmd, s.sessionId) });
      else if (s.status !== 'running') fail(res, 410, 'sandbox_stopped', 'The sandbox was stopped');
      else return;
      cmd.listeners.delete(check);
    };
    cmd.listeners.add(check);
    check();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers.authorization !== `Bearer ${token}`) return fail(res, 403, 'forbidden', 'Not authorized');
    if (url.searchParams.get('teamId') !== teamId) return fail(res, 403, 'forbidden', 'Not authorized for this team');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'v2' || parts[1] !== 'sandboxes') return fail(res, 404, 'not_found', `no route ${url.pathname}`);
    const rest = parts.slice(2);
    if (rest[0] === 'sessions') {
      const s = [...sandboxes.values()].find((x) => x.sessionId === rest[1]);
      if (!s) return fail(res, 404, 'not_found', 'Session not found');
      if (s.status !== 'running' && !(req.method === 'POST' && rest[2] === 'stop'))
        return fail(res, 410, 'sandbox_stopped', 'The sandbox was stopped');
      if (req.method === 'POST' && rest[2] === 'stop' && rest.length === 3) {
        s.status = 'stopped';
        stopProcesses(s);
        return json(res, 200, { session: sessionDto(s), sandbox: sandboxDto(s) });
      }
      if (req.method === 'POST' && rest[2] === 'cmd' && rest.length === 3) {
        const body = await readJson(req);
        if (body.wait) return fail(res, 400, 'bad_request', 'the fake runs only detached commands');
        return json(res, 200, { command: commandDto(run(s, body), s.sessionId) });
      }
      const cmd = rest[2] === 'cmd' ? s.commands.get(rest[3] ?? '') : undefined;
      if (!cmd) return fail(res, 404, 'not_found', 'Command not found');
      if (req.method === 'GET' && rest.length === 5 && rest[4] === 'logs') return streamLogs(res, s, cmd);
      if (req.method === 'GET' && rest.length === 4 && url.searchParams.get('wait') === 'true')
        return waitFor(res, s, cmd);
      if (req.method === 'GET' && rest.length === 4) return json(res, 200, { command: commandDto(cmd, s.sessionId) });
      return fail(res, 404, 'not_found', `no route ${url.pathname}`);
    }
    if (req.method === 'POST' && rest.length === 0) {
      const body = await readJson(req);
      if (body.projectId !== projectId) return fail(res, 400, 'bad_request', 'unknown project');
      seq += 1;
      const s: FakeVercelSandbox = {
        name: `sbx_${seq}`,
        sessionId: `sess_${seq}`,
        status: 'running',
        tags: (body.tags ?? {}) as Record<string, string>,
        env: (body.env ?? {}) as Record<string, string>,
        request: body,
        commands: new Map(),
        createdAt: Date.now(),
      };
      sandboxes.set(s.name, s);
      return json(res, 200, { sandbox: sandboxDto(s), session: sessionDto(s), routes: [] });
    }
    if (req.method === 'GET' && rest.length === 0) {
      const [key, value] = (url.searchParams.get('tags') ?? ':').split(':');
      const found = [...sandboxes.values()].filter((s) => !key || s.tags[key] === value).map(sandboxDto);
      return json(res, 200, { sandboxes: found, pagination: { count: found.length, next: null } });
    }
    const s = sandboxes.get(decodeURIComponent(rest[0] ?? ''));
    if (!s) return fail(res, 404, 'not_found', 'Sandbox not found');
    if (req.method === 'GET' && rest.length === 1) {
      if (url.searchParams.get('resume') !== 'false')
        return fail(res, 400, 'bad_request', 'the fake does not resume sandboxes');
      return json(res, 200, { sandbox: sandboxDto(s), session: sessionDto(s), routes: [] });
    }
    if (req.method === 'DELETE' && rest.length === 1) {
      stopProcesses(s);
      sandboxes.delete(s.name);
      return json(res, 200, { sandbox: sandboxDto(s) });
    }
    return fail(res, 404, 'not_found', `no route ${url.pathname}`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => fail(res, 500, 'internal', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiUrl: `http://127.0.0.1:${port}`,
    token,
    teamId,
    projectId,
    sandboxes,
    stopSandbox(name) {
      const s = sandboxes.get(name);
      if (!s) return;
      s.status = 'stopped';
      stopProcesses(s);
    },
    removeSandbox(name) {
      const s = sandboxes.get(name);
      if (!s) return;
      s.status = 'stopped';
      stopProcesses(s);
      sandboxes.delete(name);
    },
    async close() {
      for (const s of sandboxes.values()) stopProcesses(s);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
