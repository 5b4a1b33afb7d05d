// The line protocol between an execute_code program and the worker: request lines marked with a per-call token in
// the program's output, response lines on its standard input. Pure (no I/O). Worker-only.
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';

/** Starts every request line; the record separator makes an accidental match in ordinary output unlikely. */
export const RPC_PREFIX = '\u001eTETHER-RPC ';

export function newToken(): string {
  return randomBytes(12).toString('hex');
}

export interface RpcRequest {
  id: number;
  tool: string;
  args: Record<string, unknown>;
}

export type RpcEvent =
  | { kind: 'output'; text: string }
  | { kind: 'request'; request: RpcRequest }
  /** A marked line that is not a well-formed request: the program gets an error response when it has an id. */
  | { kind: 'malformed'; id?: number; error: string };

/**
 * Splits a program's output stream into ordinary output and requests. A request may start mid-line (after output
 * without a newline) and may arrive in pieces; text that could be the start of a marker is held back until it
 * is decided.
 */
export class RpcParser {
  private readonly marker: string;
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(token: string) {
    this.marker = `${RPC_PREFIX}${token} `;
  }

  push(chunk: Buffer | string): RpcEvent[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    return this.drain(false);
  }

  /** The stream ended: whatever is held back (an unfinished request too) is output. */
  end(): RpcEvent[] {
    this.pending += this.decoder.end();
    return this.drain(true);
  }

  private drain(final: boolean): RpcEvent[] {
    const events: RpcEvent[] = [];
    for (;;) {
      const at = this.pending.indexOf(this.marker);
      if (at < 0) {
        const keep = final ? 0 : heldBack(this.pending, this.marker);
        const text = this.pending.slice(0, this.pending.length - keep);
        if (text) events.push({ kind: 'output', text });
        this.pending = this.pending.slice(this.pending.length - keep);
        return events;
      }
      if (at > 0) events.push({ kind: 'output', text: this.pending.slice(0, at) });
      const nl = this.pending.indexOf('\n', at);
      if (nl < 0) {
        this.pending = this.pending.slice(at);
        if (final) {
          events.push({ kind: 'output', text: this.pending });
          this.pending = '';
        }
        return events;
      }
      events.push(readRequest(this.pending.slice(at + this.marker.length, nl)));
      this.pending = this.pending.slice(nl + 1);
    }
  }
}

/** Length of the longest end of `text` that is a proper start of `marker`. */
function heldBack(text: string, marker: string): number {
  for (let n = Math.min(text.length, marker.length - 1); n > 0; n -= 1) {
    if (marker.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

function readRequest(body: string): RpcEvent {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { kind: 'malformed', error: `tool request is not valid JSON: ${(err as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'malformed', error: 'tool request must be a JSON object' };
  const v = value as Record<string, unknown>;
  const id = typeof v.id === 'number' && Number.isInteger(v.id) ? v.id : undefined;
  if (id === undefined) return { kind: 'malformed', error: 'tool request has no integer id' };
  if (typeof v.tool !== 'string' || v.tool === '')
    return { kind: 'malformed', id, error: 'tool request names no tool' };
  const args = v.args ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return { kind: 'malformed', id, error: 'tool arguments must be a JSON object' };
  return { kind: 'request', request: { id, tool: v.tool, args: args as Record<string, unknown> } };
}

/**
 * One response line for the program's standard input. Non-ASCII is escaped so that a program whose standard
 * streams use another encoding (a C locale) still reads it intact.
 */
export function responseLine(id: number, result: unknown): string {
  const json = JSON.stringify({ id, result }).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${json}\n`;
}

/** A tool's JSON result string as the value the program receives (a non-JSON string is wrapped). */
export function resultValue(result: string): unknown {
  try {
    return JSON.parse(result) as unknown;
  } catch {
    return { result };
  }
}
