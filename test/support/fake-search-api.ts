// Test double: fake SerpAPI, Brave Search and Tavily APIs on loopback (the real services need keys and the internet).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSearchApi {
  /** Base URL for SERPAPI_BASE_URL, BRAVE_BASE_URL and TAVILY_BASE_URL (each API answers on its own paths). */
  url: string;
  /** Requests received: which API, the query string or JSON body, and the key it carried. */
  calls: { api: 'serpapi' | 'brave' | 'tavily'; params: Record<string, unknown>; key: string | undefined }[];
  /** The next answer overrides the normal one (status and raw body), once. */
  failNext(status: number, body: string, contentType?: string): void;
  close(): Promise<void>;
}

export const GOOD_KEY = 'good-key';

/** The hits every API returns: `count` of them, numbered, naming the query. */
function hits(query: string, count: number): { title: string; url: string; text: string }[] {
  return Array.from({ length: Math.min(count, 20) }, (_, i) => ({
    title: `Result ${i + 1} for ${query}`,
    url: `https://example.com/${i + 1}`,
    text: `Snippet ${i + 1} about ${query}`,
  }));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const chunk of req) s += String(chunk);
  return s;
}

export async function startFakeSearchApi(): Promise<FakeSearchApi> {
  const calls: FakeSearchApi['calls'] = [];
  let failure: { status: number; body: string; contentType: string } | undefined;
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const query = Object.fromEntries(url.searchParams);
      let api: 'serpapi' | 'brave' | 'tavily';
      let key: string | undefined;
      let params: Record<string, unknown>;
      if (req.method === 'GET' && url.pathname === '/search') {
        api = 'serpapi';
        key = url.searchParams.get('api_key') ?? undefined;
        params = query;
      } else if (req.method === 'GET' && url.pathname === '/res/v1/web/search') {
        api = 'brave';
        key = req.headers['x-subscription-token'] as string | undefined;
        params = query;
      } else if (req.method === 'POST' && url.pathname === '/search') {
        api = 'tavily';
        key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        params = JSON.parse(await readBody(req)) as Record<string, unknown>;
      } else {
        json(res, 404, { error: `no such endpoint ${req.method} ${url.pathname}` });
        return;
      }
      calls.push({ api, params, key });
      if (failure) {
        const f = failure;
        failure = undefined;
        res.writeHead(f.status, { 'content-type': f.contentType }).end(f.body);
        return;
      }
      if (key !== GOOD_KEY) {
        // Each service's own refusal: SerpAPI and Tavily 401 with an error body, Brave 401 (422 for a malformed token).
        json(
          res,
          401,
          api === 'brave'
            ? { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', status: 401 } }
            : { error: 'Invalid API key.' },
        );
        return;
      }
      const q = String(params.q ?? params.query ?? '');
      if (api === 'serpapi') {
        const n = Number(params.num ?? 10);
        json(res, 200, {
          search_metadata: { status: 'Success' },
          organic_results: hits(q, n).map((h, i) => ({
            position: i + 1,
            title: h.title,
            link: h.url,
            snippet: h.text,
          })),
        });
      } else if (api === 'brave') {
        const n = Number(params.count ?? 20);
        json(res, 200, {
          type: 'search',
          query: { original: q },
          web: {
            type: 'search',
            results: hits(q, n).map((h) => ({ title: h.title, url: h.url, description: h.text })),
          },
        });
      } else {
        const n = Number(params.max_results ?? 5);
        json(res, 200, {
          query: q,
          results: hits(q, n).map((h) => ({ title: h.title, url: h.url, content: h.text, score: 0.9 })),
          response_time: 0.1,
        });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    failNext: (status, body, contentType = 'application/json') => {
      failure = { status, body, contentType };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
