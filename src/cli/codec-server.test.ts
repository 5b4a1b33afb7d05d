// The codec endpoint over real HTTP on loopback: the protocol's round trip, CORS for the UI's origin only, the token
// in a header or as the endpoint's first path segment, and one clear answer for every bad request.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyring } from '../payloads/keyring.js';
import { codecHandler } from './codec-server.js';

const UI = 'http://localhost:8233';
const TOKEN = 'tok-0123456789abcdef';
const ring = parseKeyring(randomBytes(32).toString('base64'), 'keys');
const servers: Server[] = [];

async function serve(opts: { token?: string; keyring?: typeof ring | undefined } = {}): Promise<string> {
  const handle = codecHandler({
    keyring: 'keyring' in opts ? opts.keyring : ring,
    origins: [UI],
    token: opts.token,
    namespace: 'default',
  });
  const server = createServer((req, res) => void handle(req, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let open: string;
let guarded: string;
beforeAll(async () => {
  open = await serve();
  guarded = await serve({ token: TOKEN });
});
afterAll(() => servers.forEach((s) => s.close()));

const plain = {
  metadata: { encoding: Buffer.from('json/plain').toString('base64') },
  data: Buffer.from('{"answer":"forty-two"}').toString('base64'),
};
const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('tether codec-server', () => {
  it('encodes and decodes payloads as the Temporal UI sends them, also under a namespace segment', async () => {
    const enc = await post(`${open}/encode`, { payloads: [plain] }, { origin: UI, 'x-namespace': 'default' });
    expect(enc.status).toBe(200);
    expect(enc.headers.get('access-control-allow-origin')).toBe(UI);
    expect(enc.headers.get('access-control-allow-credentials')).toBe('true');
    const sealed = ((await enc.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    expect(Buffer.from(sealed[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(sealed[0]!.data, 'base64').includes('forty-two')).toBe(false);
    const dec = await post(`${open}/default/decode`, { payloads: sealed });
    expect(await dec.json()).toEqual({ payloads: [plain] });
  });

  it("answers the browser's preflight for the UI's origin, and refuses any other origin outright", async () => {
    const pre = await fetch(`${open}/decode`, {
      method: 'OPTIONS',
      headers: { origin: UI, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-namespace' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toContain('x-namespace');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const evil = await post(`${open}/decode`, { payloads: [plain] }, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await evil.json()) as { error: string }).error).toMatch(/--origin https:\/\/evil\.example/);
  });

  it('with a token, takes it as a bearer header or as the first path segment, and nothing else', async () => {
    expect((await post(`${guarded}/decode`, { payloads: [plain] })).status).toBe(401);
    expect((await post(`${guarded}/decode`, { payloads: [plain] }, { authorization: 'Bearer wrong-token-xxxxxxx' })).status).toBe(401); // prettier-ignore
    expect((await post(`${guarded}/decode`, { payloads: [plain] }, { authorization: `Bearer ${TOKEN}` })).status).toBe(200); // prettier-ignore
    expect((await post(`${guarded}/${TOKEN}/default/decode`, { payloads: [plain] })).status).toBe(200);
    expect((await post(`${guarded}/${TOKEN}x/decode`, { payloads: [plain] })).status).toBe(401);
    // A preflight carries no credentials: it is answered, and the request that follows must have them.
    const pre = await fetch(`${guarded}/decode`, { method: 'OPTIONS', headers: { origin: UI } });
    expect(pre.status).toBe(204);
  });

  it.each([
    ['a method other than POST', () => fetch(`${open}/decode`), 405, /GET is not allowed/],
    ['an unknown path', () => post(`${open}/download`, {}), 404, /no route/],
    ['another namespace', () => post(`${open}/other/decode`, { payloads: [] }), 403, /namespace other is not served/],
    ['a body that is not JSON', () => post(`${open}/decode`, '{"payloads":'), 400, /JSON/],
    ['payloads that are not a list', () => post(`${open}/decode`, { payloads: 'x' }), 400, /\{"payloads": \[\.\.\.\]\}/],
    ['data that is not base64', () => post(`${open}/decode`, { payloads: [{ data: '%%%' }] }), 400, /payloads\[0\]: data is not base64/],
    ['a payload sealed with a key it does not hold', async () => post(`${open}/decode`, { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted').toString('base64'), 'encryption-key-id': Buffer.from('0000000000000000').toString('base64') }, data: 'AAAA' }] }), 400, /key id 0000000000000000, which temporal\.encryption\.key_file \(keys\) does not hold/],
    ['a body over 16 MiB', () => post(`${open}/decode`, 'x'.repeat(17 * 1024 * 1024)), 413, /body larger than/],
  ])('answers %s with one line', async (_, request, status, message) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: string }).error).toMatch(message);
  }); // prettier-ignore

  it('says encryption is off when asked to encode without a key file', async () => {
    const off = await serve({ keyring: undefined });
    const res = await post(`${off}/encode`, { payloads: [plain] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/temporal\.encryption\.key_file is not set/);
  });
});
