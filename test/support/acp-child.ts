// Starts `tether acp` (the compiled CLI) as an editor does, and speaks newline-delimited JSON-RPC to it by hand.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cliPath } from './cli.js';

export interface RpcMessage {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export function spawnAcp(env: Record<string, string>, cwd: string): ChildProcessWithoutNullStreams {
  return spawn('node', [cliPath, 'acp'], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A hand-written ACP client: every stdout line must be one JSON-RPC message, or `badLines` records it. */
export class RawAcpClient {
  readonly received: RpcMessage[] = [];
  readonly badLines: string[] = [];
  stderr = '';
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number | string, (m: RpcMessage) => void>();
  /** Answers the agent's requests (session/request_permission); the test sets it. */
  onRequest: (m: RpcMessage) => Record<string, unknown> | Promise<Record<string, unknown>> = () => ({});

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (c: Buffer) => this.read(c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString('utf8')));
  }

  private read(text: string): void {
    this.buffer += text;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      let m: RpcMessage;
      try {
        m = JSON.parse(line) as RpcMessage;
      } catch {
        this.badLines.push(line);
        continue;
      }
      if (m.jsonrpc !== '2.0') this.badLines.push(line);
      this.received.push(m);
      if (m.method && m.id !== undefined) void this.answer(m);
      else if (m.id !== undefined && this.waiting.has(m.id)) this.waiting.get(m.id)!(m);
    }
  }

  private async answer(m: RpcMessage): Promise<void> {
    const result = await this.onRequest(m);
    this.send({ jsonrpc: '2.0', id: m.id, result });
  }

  send(m: RpcMessage): void {
    this.child.stdin.write(`${JSON.stringify(m)}\n`);
  }

  request(method: string, params: Record<string, unknown>): Promise<RpcMessage> {
    const id = this.nextId++;
    const reply = new Promise<RpcMessage>((resolve) => this.waiting.set(id, resolve));
    this.send({ jsonrpc: '2.0', id, method, params });
    return reply;
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** session/update payloads received so far. */
  updates(): Record<string, unknown>[] {
    return this.received
      .filter((m) => m.method === 'session/update')
      .map((m) => m.params!.update as Record<string, unknown>);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}
