import { describe, expect, it } from 'vitest';
import { responseLine, RpcParser, RPC_PREFIX, type RpcEvent } from './rpc.js';

const TOKEN = 'abc123';
const req = (body: string): string => `${RPC_PREFIX}${TOKEN} ${body}\n`;

function collect(parts: (string | Buffer)[]): RpcEvent[] {
  const p = new RpcParser(TOKEN);
  const events = parts.flatMap((part) => p.push(part));
  return [...events, ...p.end()];
}

function outputOf(events: RpcEvent[]): string {
  return events.map((e) => (e.kind === 'output' ? e.text : '')).join('');
}

describe('RpcParser', () => {
  it('separates requests from output, also mid-line', () => {
    const events = collect([`hello\nbefore-${req('{"id":1,"tool":"read_file","args":{"path":"a"}}')}after\n`]);
    expect(outputOf(events)).toBe('hello\nbefore-after\n');
    expect(events.filter((e) => e.kind === 'request')).toEqual([
      { kind: 'request', request: { id: 1, tool: 'read_file', args: { path: 'a' } } },
    ]);
  });

  it('joins a request split across chunks, at any byte', () => {
    const whole = `x${req('{"id":2,"tool":"terminal","args":{"command":"echo é"}}')}y`;
    const bytes = Buffer.from(whole, 'utf8');
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const events = collect([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(outputOf(events)).toBe('xy');
      const r = events.find((e) => e.kind === 'request');
      expect(r?.kind === 'request' && r.request.args).toEqual({ command: 'echo é' });
    }
  });

  it('ignores a marker with another token and keeps an unfinished request as output', () => {
    const other = `${RPC_PREFIX}zzz {"id":1,"tool":"x"}\n`;
    expect(outputOf(collect([other]))).toBe(other);
    const unfinished = `${RPC_PREFIX}${TOKEN} {"id":1`;
    expect(outputOf(collect([unfinished]))).toBe(unfinished);
  });

  it('reports malformed requests with their id when there is one', () => {
    const events = collect([req('not json'), req('{"id":3}'), req('{"id":4,"tool":"t","args":[1]}')]);
    expect(events.map((e) => (e.kind === 'malformed' ? [e.id, e.error] : e.kind))).toEqual([
      [undefined, expect.stringContaining('not valid JSON')],
      [3, 'tool request names no tool'],
      [4, 'tool arguments must be a JSON object'],
    ]);
  });
});

describe('responseLine', () => {
  it('is one ASCII line that parses back to the value', () => {
    const line = responseLine(7, { content: 'é\n\u2028😀' });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\n\u007f-\uffff]/);
    expect(JSON.parse(line)).toEqual({ id: 7, result: { content: 'é\n\u2028😀' } });
  });
});
