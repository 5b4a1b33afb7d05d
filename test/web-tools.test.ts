// web_search against fake search APIs on loopback; web_extract against a real page server on 127.0.0.1, reached by
// names the egress policy maps there (egress.resolve), outside a run: allowed hosts pass, nothing else does, and no
// name is resolved before its host is allowed (the gate's resolver here is the test's, and records every name).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { setCurrentConfig } from '../src/config/current.js';
import { registry } from '../src/registry/index.js';
import '../src/tools/web-extract.js';
import '../src/tools/web-search.js';
import { egressGate } from '../src/environments/egress/gate.js';
import { EgressSchema } from '../src/environments/egress/settings.js';
import { GOOD_KEY, startFakeSearchApi, type FakeSearchApi } from './support/fake-search-api.js';
import { makeCertificate, startStandIn, type StandIn } from './support/egress-stand-in.js';
import { ARTICLE_PARAGRAPHS, startPageServer, type PageServer } from './support/page-server.js';

const ctx = { taskId: 'web', cwd: process.cwd() };
const SEARCH_ENV = [
  'SERPAPI_API_KEY',
  'BRAVE_API_KEY',
  'TAVILY_API_KEY',
  'SERPAPI_BASE_URL',
  'BRAVE_BASE_URL',
  'TAVILY_BASE_URL',
] as const;

async function call(tool: string, args: object): Promise<Record<string, unknown>> {
  return JSON.parse(await registry.dispatch(tool, JSON.stringify(args), ctx)) as Record<string, unknown>;
}

type Page = {
  url: string;
  final_url?: string;
  title?: string;
  content?: string;
  content_type?: string;
  truncated?: boolean;
  error?: string;
};

async function extract(...urls: string[]): Promise<Page[]> {
  const out = await call('web_extract', { urls });
  expect(out.error).toBeUndefined();
  return out.results as Page[];
}

describe('web_search (double: fake SerpAPI, Brave and Tavily APIs on loopback)', () => {
  let api: FakeSearchApi;
  const saved = Object.fromEntries(SEARCH_ENV.map((k) => [k, process.env[k]]));

  beforeAll(async () => {
    api = await startFakeSearchApi();
  });
  afterAll(async () => {
    await api.close();
    for (const k of SEARCH_ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  beforeEach(() => {
    setCurrentConfig(parseConfig({}));
    for (const k of SEARCH_ENV) delete process.env[k];
    process.env.SERPAPI_BASE_URL = api.url;
    process.env.BRAVE_BASE_URL = api.url;
    process.env.TAVILY_BASE_URL = api.url;
  });

  it('is hidden when no search key is set, and says which to set', () => {
    const verdict = registry.availability(registry.get('web_search')!);
    expect(verdict.available).toBe(false);
    expect(verdict.available ? '' : verdict.reason).toMatch(
      /no search key: set SERPAPI_API_KEY, BRAVE_API_KEY or TAVILY_API_KEY/,
    );
    process.env.BRAVE_API_KEY = GOOD_KEY;
    expect(registry.availability(registry.get('web_search')!).available).toBe(true);
  });

  it('searches SerpAPI when its key is set, passing query, limit and key', async () => {
    process.env.SERPAPI_API_KEY = GOOD_KEY;
    const out = await call('web_search', { query: 'sea otters', limit: 3 });
    expect(out).toEqual({
      query: 'sea otters',
      provider: 'serpapi',
      results: [1, 2, 3].map((i) => ({
        title: `Result ${i} for sea otters`,
        url: `https://example.com/${i}`,
        snippet: `Snippet ${i} about sea otters`,
      })),
    });
    expect(api.calls.at(-1)).toMatchObject({
      api: 'serpapi',
      key: GOOD_KEY,
      params: { engine: 'google', q: 'sea otters', num: '3' },
    });
  });

  it('uses Brave when only its key is set, with 5 results by default', async () => {
    process.env.BRAVE_API_KEY = GOOD_KEY;
    const out = await call('web_search', { query: 'otter stones' });
    expect(out.provider).toBe('brave');
    expect(out.results).toHaveLength(5);
    expect((out.results as { snippet: string }[])[0]!.snippet).toBe('Snippet 1 about otter stones');
    expect(api.calls.at(-1)).toMatchObject({ api: 'brave', key: GOOD_KEY, params: { q: 'otter stones', count: '5' } });
  });

  it('uses Tavily, and web.search_provider picks it over a key earlier in the order', async () => {
    process.env.SERPAPI_API_KEY = GOOD_KEY;
    process.env.TAVILY_API_KEY = GOOD_KEY;
    setCurrentConfig(parseConfig({ web: { search_provider: 'tavily' } }));
    const out = await call('web_search', { query: 'otter fur', limit: 2 });
    expect(out.provider).toBe('tavily');
    expect(out.results).toEqual(
      [1, 2].map((i) => ({
        title: `Result ${i} for otter fur`,
        url: `https://example.com/${i}`,
        snippet: `Snippet ${i} about otter fur`,
      })),
    );
    expect(api.calls.at(-1)).toMatchObject({
      api: 'tavily',
      key: GOOD_KEY,
      params: { query: 'otter fur', max_results: 2 },
    });
  });

  it('hides the tool when the configured provider has no key', () => {
    process.env.SERPAPI_API_KEY = GOOD_KEY;
    setCurrentConfig(parseConfig({ web: { search_provider: 'brave' } }));
    const verdict = registry.availability(registry.get('web_search')!);
    expect(verdict.available ? '' : verdict.reason).toMatch(
      /web.search_provider is brave but BRAVE_API_KEY is not set/,
    );
  });

  it('reports a refused key naming the variable, a rate limit, non-JSON and an unreachable API as errors', async () => {
    process.env.BRAVE_API_KEY = 'revoked';
    expect((await call('web_search', { query: 'q' })).error).toBe(
      'Brave Search refused the API key (HTTP 401): check BRAVE_API_KEY',
    );
    process.env.BRAVE_API_KEY = GOOD_KEY;
    api.failNext(429, '{"error":"too many"}');
    expect((await call('web_search', { query: 'q' })).error).toMatch(/rate limited by Brave Search/);
    api.failNext(200, '<html>maintenance</html>', 'text/html');
    expect((await call('web_search', { query: 'q' })).error).toMatch(
      /Brave Search answered with something that is not JSON/,
    );
    const closed = await startPageServer();
    await closed.close();
    process.env.BRAVE_BASE_URL = closed.origin;
    expect((await call('web_search', { query: 'q' })).error).toMatch(
      /could not reach Brave Search at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
    );
  });

  it('reports a search API that does not answer in web.timeout_seconds', async () => {
    const slow = await startPageServer({
      '/search': { delayMs: 5_000, headers: { 'content-type': 'application/json' }, body: '{}' },
    });
    try {
      setCurrentConfig(parseConfig({ web: { timeout_seconds: 0.3 } }));
      process.env.SERPAPI_API_KEY = GOOD_KEY;
      process.env.SERPAPI_BASE_URL = slow.origin;
      expect((await call('web_search', { query: 'q' })).error).toBe('SerpAPI did not answer within 0.3 s');
    } finally {
      await slow.close();
    }
  });
});

/** Names the egress policy maps to the page server: `pages` and `denied` are the same server under two names. */
const PAGES = 'pages.example.test';
const at = (path: string, host = PAGES): string => `http://${host}${path}`;
/** Every name the gate was asked to resolve, in order. */
const resolved: string[] = [];

function policy(
  pages: PageServer,
  extra: { allow?: unknown[]; deny?: string[]; resolve?: Record<string, string> } = {},
) {
  const address = new URL(pages.origin).host;
  egressGate().configure({
    policy: EgressSchema.parse({
      allow: [PAGES, ...(extra.allow ?? [])],
      deny: ['denied.example.test', ...(extra.deny ?? [])],
      resolve: { [PAGES]: address, 'denied.example.test': address, ...(extra.resolve ?? {}) },
    }),
    // No name leaves this process: the test's resolver knows one name that rebinds to loopback, and nothing else.
    resolver: async (name) => {
      resolved.push(name);
      if (name === 'rebind.example.test') return ['203.0.113.7', '127.0.0.1'];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    },
  });
}

describe('web_extract (real page server on 127.0.0.1, reached by names the egress policy maps to it)', () => {
  let pages: PageServer;

  beforeAll(async () => {
    pages = await startPageServer({
      '/big.txt': { headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(300_000) },
      '/long': {
        headers: { 'content-type': 'text/html' },
        body: `<html><head><title>Long</title></head><body><article>${'<p>otters are great swimmers and divers. </p>'.repeat(200)}</article></body></html>`,
      },
      '/notes.md': { headers: { 'content-type': 'text/markdown' }, body: '# Notes\n\n- one\n' },
      '/to-file': { status: 302, headers: { location: 'file:///etc/passwd' } },
      '/gzipped': {
        headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
        body: gzipSync('packed otter facts'),
      },
    });
    policy(pages);
  });
  afterAll(async () => {
    await pages.close();
  });
  beforeEach(() => {
    setCurrentConfig(parseConfig({ web: { timeout_seconds: 2 } }));
  });

  it('returns the article text and title without navigation, sidebar, footer or scripts', async () => {
    const [page] = await extract(at('/article'));
    expect(page).toMatchObject({ url: at('/article'), final_url: at('/article'), content_type: 'text/html' });
    expect(page!.title).toMatch(/Otters|How sea otters live/);
    for (const p of ARTICLE_PARAGRAPHS) expect(page!.content).toContain(p);
    for (const chrome of [
      'Subscribe to our newsletter',
      'All rights reserved',
      'Cookie settings',
      'TRACKER-SCRIPT',
      'About us',
    ]) {
      expect(page!.content).not.toContain(chrome);
    }
    expect(page!.truncated).toBeUndefined();
    // The request went to the name the policy allowed, and the name was never resolved: the test map stood in.
    expect(pages.hosts.at(-1)).toBe(PAGES);
    expect(resolved).not.toContain(PAGES);
  });

  it('follows a chain of redirects and reports the final URL', async () => {
    const [page] = await extract(at('/redirect/1'));
    expect(page!.final_url).toBe(at('/article'));
    expect(page!.content).toContain(ARTICLE_PARAGRAPHS[0]);
  });

  it('re-checks every redirect hop: a redirect to file:// is refused', async () => {
    const [page] = await extract(at('/to-file'));
    expect(page!.error).toMatch(/only http and https URLs can be fetched, not file:/);
  });

  it('decodes a gzip-encoded body', async () => {
    const [page] = await extract(at('/gzipped'));
    expect(page!.content).toBe('packed otter facts');
  });

  it('gives up on a redirect loop after five redirects', async () => {
    const [page] = await extract(at('/loop'));
    expect(page!.error).toMatch(/more than 5 redirects/);
  });

  it('stops reading at web.max_bytes and cuts text at web.max_chars, saying so', async () => {
    setCurrentConfig(parseConfig({ web: { max_bytes: 50_000, max_chars: 100_000 } }));
    const [big] = await extract(at('/big.txt'));
    expect(big!.truncated).toBe(true);
    expect(big!.content!.startsWith('x'.repeat(50_000))).toBe(true);
    expect(big!.content).toMatch(/larger than web\.max_bytes \(50000 bytes\)/);
    setCurrentConfig(parseConfig({ web: { max_chars: 2_000 } }));
    const [long] = await extract(at('/long'));
    expect(long!.truncated).toBe(true);
    expect(long!.content!.length).toBeLessThanOrEqual(2_000);
    expect(long!.content).toMatch(
      /otters are great swimmers[\s\S]*\[\.\.\. cut: the first 2000 of \d+ characters are shown\]$/,
    );
  });

  it('returns plain text, Markdown and JSON as they are', async () => {
    const [txt, md, json] = await extract(at('/plain.txt'), at('/notes.md'), at('/data.json'));
    expect(txt).toMatchObject({ content: 'line one\nline two\n', content_type: 'text/plain', title: '' });
    expect(md).toMatchObject({ content: '# Notes\n\n- one\n', content_type: 'text/markdown' });
    expect(json).toMatchObject({ content: '{"otters": 3}', content_type: 'application/json' });
  });

  it('refuses an image with an error naming its content type', async () => {
    const [page] = await extract(at('/image.png'));
    expect(page).toEqual({
      url: at('/image.png'),
      error: expect.stringMatching(/unsupported content type image\/png/) as unknown,
    });
  });

  it('reports a slow page as a timeout and a 404 with its status', async () => {
    setCurrentConfig(parseConfig({ web: { timeout_seconds: 0.5 } }));
    const [slow, missing] = await extract(at('/slow'), at('/nope'));
    expect(slow!.error).toBe(`timed out after 0.5 s fetching ${at('/slow')}`);
    expect(missing!.error).toBe(`HTTP 404 Not Found from ${at('/nope')}`);
  });

  it('returns the good page when another one fails', async () => {
    const [bad, good] = await extract('ftp://example.com/x', at('/plain.txt'));
    expect(bad!.error).toMatch(/only http and https URLs can be fetched, not ftp:/);
    expect(good!.content).toBe('line one\nline two\n');
  });

  it('validates its arguments: at least one URL, at most five', async () => {
    expect((await call('web_extract', { urls: [] })).error).toMatch(/Invalid arguments/);
    expect((await call('web_extract', { urls: Array(6).fill(at('/plain.txt')) })).error).toMatch(/Invalid arguments/);
  });
});

describe('web_extract against the egress policy, as an attacker would try it', () => {
  let pages: PageServer;
  let tls: StandIn;

  beforeAll(async () => {
    pages = await startPageServer();
    tls = await startStandIn(undefined, makeCertificate(mkdtempSync(join(tmpdir(), 'tether-web-tls-'))));
    policy(pages, {
      allow: [
        'secure.example.test:443',
        'rebind.example.test',
        { host: 'docs.example.test', access: 'read', paths: ['/docs/'] },
      ],
      deny: ['BÜCHER.example.test'],
      resolve: { 'secure.example.test': tls.address, 'docs.example.test': new URL(pages.origin).host },
    });
    const redirect = (location: string) => ({ status: 302, headers: { location } });
    pages.set('/to-denied', redirect('http://denied.example.test/x'));
    pages.set('/to-loopback', redirect(`${pages.origin}/plain.txt`));
    pages.set('/to-unlisted', redirect('http://secret-1234.exfil.example.invalid/x'));
    pages.set('/to-shouting', redirect('http://DENIED.Example.TEST./x'));
    pages.set('/to-credentials', redirect(`http://${PAGES}@denied.example.test/x`));
    const text = { headers: { 'content-type': 'text/plain' }, body: 'under the prefix' };
    pages.set('/docs/a', text);
    pages.set('/docs/away', redirect('/private/x'));
    pages.set('/private/x', { ...text, body: 'PRIVATE' });
  });
  afterAll(async () => {
    await pages.close();
    await tls.close();
  });
  beforeEach(() => {
    setCurrentConfig(parseConfig({ web: { timeout_seconds: 5 } }));
    resolved.length = 0;
  });

  it('a host in egress.deny is refused, as it is written and in every other spelling of it', async () => {
    const before = pages.requests.length;
    const results = await extract(
      at('/x', 'denied.example.test'),
      'http://DENIED.example.test./x',
      'http://BÜCHER.example.test/x',
      'http://xn--bcher-kva.example.test/x',
    );
    for (const r of results) expect(r.error).toMatch(/refused to fetch .*in terminal\.local\.sandbox\.egress\.deny/);
    expect(pages.requests.length).toBe(before);
    expect(resolved).toEqual([]);
  });

  it('every redirect hop is decided again: to a denied host, to loopback, to a name nobody allowed, in capitals', async () => {
    const before = pages.requests.length;
    const [denied, loopback, unlisted, shouting, credentials] = await extract(
      at('/to-denied'),
      at('/to-loopback'),
      at('/to-unlisted'),
      at('/to-shouting'),
      at('/to-credentials'),
    );
    expect(denied!.error).toMatch(/refused to fetch http:\/\/denied\.example\.test\/x: .*egress\.deny/);
    expect(loopback!.error).toMatch(/127\.0\.0\.1 is a loopback \(this machine\) address/);
    expect(unlisted!.error).toMatch(
      /secret-1234\.exfil\.example\.invalid:80 is not in terminal\.local\.sandbox\.egress\.allow, and there is no run to ask/,
    );
    expect(shouting!.error).toMatch(/egress\.deny/);
    expect(credentials!.error).toMatch(/a URL with a user name or password is not fetched/);
    // Only the five first hops reached the server; the name carrying data was never looked up.
    expect(pages.requests.length).toBe(before + 5);
    expect(pages.hosts.slice(before)).toEqual(Array(5).fill(PAGES));
    expect(resolved).toEqual([]);
  });

  it('a host allowed for reading under /docs/ only: a page there is read; elsewhere, by a redirect, an encoded .. or an encoded /, nothing arrives', async () => {
    const before = pages.requests.length;
    const [inside, away, direct, dotted, slashed] = await extract(
      at('/docs/a', 'docs.example.test'),
      at('/docs/away', 'docs.example.test'),
      at('/private/x', 'docs.example.test'),
      at('/docs/%2e%2e/private/x', 'docs.example.test'),
      at('/docs/..%2fprivate/x', 'docs.example.test'),
    );
    expect(inside!.content).toBe('under the prefix');
    expect(away!.error).toMatch(
      /refused to fetch http:\/\/docs\.example\.test\/private\/x: GET http:\/\/docs\.example\.test\/private\/x: no entry allows this read to docs\.example\.test:80 at this path .*there is no run to ask/,
    );
    expect(direct!.error).toMatch(/GET http:\/\/docs\.example\.test\/private\/x: no entry allows this read/);
    expect(dotted!.error).toMatch(/GET http:\/\/docs\.example\.test\/private\/x: no entry allows this read/);
    expect(slashed!.error).toMatch(/GET http:\/\/docs\.example\.test\/docs\/\.\.%2fprivate\/x: no entry allows/);
    // The page and the redirect arrived; neither /private/x nor the dot-encoded path did.
    expect(pages.requests.slice(before).sort()).toEqual(['/docs/a', '/docs/away']);
  });

  it('a name nobody allowed is refused before it is resolved; so are this machine and its names in every spelling', async () => {
    const port = new URL(pages.origin).port;
    const results = await extract(
      'http://secret-5678.exfil.example.invalid/',
      `http://127.0.0.1:${port}/plain.txt`,
      `http://2130706433:${port}/plain.txt`,
      `http://[::ffff:127.0.0.1]:${port}/plain.txt`,
      `http://localhost:${port}/plain.txt`,
    );
    expect(results[0]!.error).toMatch(/there is no run to ask/);
    for (const r of results.slice(1, 4)) expect(r.error).toMatch(/is a loopback \(this machine\) address/);
    expect(results[4]!.error).toMatch(/localhost is this machine/);
    expect(resolved).toEqual([]);
    expect(pages.requests.filter((r) => r === '/plain.txt')).toEqual([]);
  });

  it('an allowed name that resolves to this machine among other answers (DNS rebinding) is refused before any connection', async () => {
    const [r] = await extract('http://rebind.example.test/');
    expect(r!.error).toMatch(/rebind\.example\.test resolves to 127\.0\.0\.1 is a loopback/);
    expect(resolved).toEqual(['rebind.example.test']);
  });

  it('an over-long host name, file:// and a user name in the URL are refused before anything is decided', async () => {
    const results = await extract(
      `http://${'a'.repeat(300)}.example.test/`,
      'file:///etc/passwd',
      `http://${PAGES}@denied.example.test/`,
    );
    expect(results[0]!.error).toMatch(/not a valid host name|over-long/);
    expect(results[1]!.error).toMatch(/only http and https URLs can be fetched, not file:/);
    expect(results[2]!.error).toMatch(/a URL with a user name or password is not fetched/);
    expect(resolved).toEqual([]);
  });

  it('https on the connection the gate opened checks the certificate (a stand-in signed by nobody is refused)', async () => {
    const [r] = await extract('https://secure.example.test/');
    expect(r!.error).toMatch(
      /could not fetch https:\/\/secure\.example\.test\/: .*(SELF_SIGNED|self.signed|UNABLE_TO_VERIFY)/i,
    );
    expect(tls.hits('secure.example.test')).toBe(0);
  });
});

describe('web tools under each terminal.local.sandbox.network mode (what a command may reach, never more)', () => {
  let pages: PageServer;
  const saved = process.env.BRAVE_API_KEY;

  beforeAll(async () => {
    pages = await startPageServer();
    policy(pages, { resolve: { 'unlisted.example.test': new URL(pages.origin).host } });
  });
  afterAll(async () => {
    await pages.close();
    if (saved === undefined) delete process.env.BRAVE_API_KEY;
    else process.env.BRAVE_API_KEY = saved;
  });

  const network = (mode: unknown): void =>
    setCurrentConfig(parseConfig({ terminal: { local: { sandbox: { network: mode } } } }));

  it.skipIf(process.platform !== 'linux')(
    'false: nothing leaves, web_search included, saying which setting',
    async () => {
      network(false);
      process.env.BRAVE_API_KEY = GOOD_KEY;
      const before = pages.requests.length;
      const [page] = await extract(at('/plain.txt'));
      expect(page!.error).toMatch(
        /terminal\.local\.sandbox\.network is false: this run's commands and tools reach no network/,
      );
      expect((await call('web_search', { query: 'otters' })).error).toMatch(
        /^web_search: terminal\.local\.sandbox\.network is false/,
      );
      expect(pages.requests.length).toBe(before);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'direct: a host nobody listed is reached without asking (even outside a run); deny and this machine still hold',
    async () => {
      network('direct');
      const port = new URL(pages.origin).port;
      const [open, denied, loopback] = await extract(
        at('/plain.txt', 'unlisted.example.test'),
        at('/plain.txt', 'denied.example.test'),
        `http://127.0.0.1:${port}/plain.txt`,
      );
      expect(open!.content).toBe('line one\nline two\n');
      expect(denied!.error).toMatch(/egress\.deny/);
      expect(loopback!.error).toMatch(/loopback/);
      expect(pages.hosts.filter((h) => h !== 'unlisted.example.test' && h !== PAGES)).toEqual([]);
    },
  );

  it('sandbox off, or another backend: through the egress policy all the same', async () => {
    setCurrentConfig(parseConfig({ terminal: { local: { sandbox: 'off' } } }));
    expect((await extract(at('/plain.txt', 'unlisted.example.test')))[0]!.error).toMatch(/there is no run to ask/);
    setCurrentConfig(parseConfig({ terminal: { backend: 'docker' } }));
    expect((await extract(at('/plain.txt', 'unlisted.example.test')))[0]!.error).toMatch(/there is no run to ask/);
    expect((await extract(at('/plain.txt')))[0]!.content).toBe('line one\nline two\n');
  });
});
