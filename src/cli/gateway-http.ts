// HTTP plumbing of the approval gateway: JSON answers, and listen errors turned into one line naming --host or
// --port (bounded request bodies: src/decisions/read-body.ts). Worker-only.
import type { Server, ServerResponse } from 'node:http';
import { CliError } from './errors.js';

export function send(res: ServerResponse, status: number, payload: unknown, close = false): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) });
  res.end(`${JSON.stringify(payload)}\n`);
}

/** `--port`'s text (or the config's number) as a TCP port; 0 picks a free one. */
export function portOption(value: string | number, from: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535)
    throw new CliError(`${from} must be a TCP port from 0 to 65535 (0 picks a free one), got '${String(value)}'`);
  return n;
}

/** Listens, or fails with one line that names the option to change. */
export async function listen(
  server: Server,
  host: string,
  port: number,
  hostFrom: string,
  portFrom: string,
): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why: Record<string, string> = {
      EADDRINUSE: `${portFrom} ${port}: the port is in use on ${host} (another tether serve? pick another port, or 0 for a free one)`,
      EACCES: `${portFrom} ${port}: not allowed to listen on this port (ports below 1024 need privileges)`,
      EADDRNOTAVAIL: `${hostFrom} ${host}: this machine has no such address (use 127.0.0.1, or an address of one of its interfaces)`,
      ENOTFOUND: `${hostFrom} ${host}: no such host name`,
      EAI_AGAIN: `${hostFrom} ${host}: the host name could not be resolved`,
      EAFNOSUPPORT: `${hostFrom} ${host}: the address family is not supported here`,
    };
    throw new CliError(
      `cannot listen: ${why[code ?? ''] ?? `${hostFrom} ${host}, ${portFrom} ${port}: ${(err as Error).message}`}`,
      2,
    );
  }
}
