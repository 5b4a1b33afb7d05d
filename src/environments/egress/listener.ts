// A listening socket on 127.0.0.1 inside a task's network namespace, held by the worker: a short-lived Node child
// started in the namespace (nsenter) binds it and hands it over on its IPC channel, then exits. Connections from
// the task's commands then land in the worker's egress proxy with no process or hop in between, and the socket
// goes when the worker closes it or dies. Worker-only.
import { spawn } from 'node:child_process';
import type { Server } from 'node:net';

/** How long the child may take to bind and hand over the socket (a Node start on a loaded machine). */
const HANDOVER_MS = 15_000;

/** The child's program: bind, send the server handle, close its own copy, leave. */
const CHILD = `
const server = require('node:net').createServer();
server.on('error', (e) => { console.error(e.message); process.exit(2); });
server.listen({ host: '127.0.0.1', port: Number(process.argv[1]) || 0, exclusive: true }, () => {
  process.send({ port: server.address().port }, server, () => { server.close(); process.disconnect(); });
});`;

/**
 * Binds 127.0.0.1:`port` (0: any free port) in the namespace `enter` runs its argv in (`nsenter ... --`), and
 * returns the worker's copy of the listening socket. Rejects with the child's reason.
 */
export function listenInside(enter: (argv: string[]) => string[], port = 0): Promise<{ server: Server; port: number }> {
  const [file, ...args] = enter([process.execPath, '-e', CHILD, String(port)]) as [string, ...string[]];
  const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {} });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (stderr.length < 2_000) stderr += c.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`no socket within ${HANDOVER_MS / 1000} s`), HANDOVER_MS);
    let done = false;
    function fail(why: string): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`could not open the egress proxy's port in the task's network namespace: ${why}`));
    }
    child.on('error', (err) => fail(err.message));
    // A message sent before the child exited arrives before its channel's 'disconnect': fail only after both.
    let exit: number | null | undefined;
    let disconnected = false;
    const ended = (): void => {
      if (exit !== undefined && disconnected)
        fail(stderr.trim().split('\n')[0] || `the helper exited with ${String(exit)}`);
    };
    child.on('exit', (code) => {
      exit = code;
      ended();
    });
    child.on('disconnect', () => {
      disconnected = true;
      ended();
    });
    child.on('message', (m: { port?: unknown }, handle: unknown) => {
      const server = handle as Server | undefined;
      if (done) {
        server?.close();
        return;
      }
      if (!server || typeof m?.port !== 'number') return fail('the helper sent no socket');
      done = true;
      clearTimeout(timer);
      resolve({ server, port: m.port });
    });
  });
}
