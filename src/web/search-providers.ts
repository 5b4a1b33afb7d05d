// The web search APIs web_search can use (SerpAPI, Brave Search, Tavily): choosing one, the request, the answer. Worker-only.
import { TetherError } from '../common/errors.js';

type ProviderName = 'serpapi' | 'brave' | 'tavily';

interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

interface Provider {
  label: string;
  keyEnv: string;
  baseEnv: string;
  defaultBase: string;
  request(base: string, key: string, query: string, limit: number): { url: string; init: RequestInit };
  results(body: unknown): SearchResult[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** Throws when a provider answered 200 with an error object instead of results. */
function failIfError(label: string, body: Json): void {
  const error = body.error ?? body.detail;
  if (typeof error === 'string' && error !== '')
    throw new TetherError('Web.SearchFailed', `${label} answered with an error: ${error}`);
}

export const PROVIDERS: Record<ProviderName, Provider> = {
  // https://serpapi.com/search-api: GET /search?engine=google&q=...&num=...&api_key=...; results in organic_results.
  serpapi: {
    label: 'SerpAPI',
    keyEnv: 'SERPAPI_API_KEY',
    baseEnv: 'SERPAPI_BASE_URL',
    defaultBase: 'https://serpapi.com',
    request(base, key, query, limit) {
      const params = new URLSearchParams({
        engine: 'google',
        q: query,
        num: String(limit),
        api_key: key,
        output: 'json',
      });
      return { url: `${base}/search?${params}`, init: { method: 'GET', headers: { accept: 'application/json' } } };
    },
    results(body) {
      if (!isObject(body)) return [];
      // SerpAPI reports an empty result page as an error string; that is no results, not a failure.
      if (typeof body.error === 'string' && /hasn't returned any results/i.test(body.error)) return [];
      failIfError('SerpAPI', body);
      return list(body.organic_results).map((r) => ({
        title: str(r.title),
        url: str(r.link),
        snippet: str(r.snippet),
      }));
    },
  },
  // https://api-dashboard.search.brave.com/app/documentation/web-search: GET /res/v1/web/search?q=&count=, key in X-Subscription-Token.
  brave: {
    label: 'Brave Search',
    keyEnv: 'BRAVE_API_KEY',
    baseEnv: 'BRAVE_BASE_URL',
    defaultBase: 'https://api.search.brave.com',
    request(base, key, query, limit) {
      const params = new URLSearchParams({ q: query, count: String(limit) });
      return {
        url: `${base}/res/v1/web/search?${params}`,
        init: { method: 'GET', headers: { accept: 'application/json', 'x-subscription-token': key } },
      };
    },
    results(body) {
      if (!isObject(body)) return [];
      const web = isObject(body.web) ? body.web : {};
      return list(web.results).map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.description) }));
    },
  },
  // https://docs.tavily.com/documentation/api-reference/endpoint/search: POST /search {query, max_results}, Bearer key.
  tavily: {
    label: 'Tavily',
    keyEnv: 'TAVILY_API_KEY',
    baseEnv: 'TAVILY_BASE_URL',
    defaultBase: 'https://api.tavily.com',
    request(base, key, query, limit) {
      return {
        url: `${base}/search`,
        init: {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ query, max_results: limit, search_depth: 'basic' }),
        },
      };
    },
    results(body) {
      if (!isObject(body)) return [];
      failIfError('Tavily', body);
      return list(body.results).map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) }));
    },
  },
};

const ORDER: readonly ProviderName[] = ['serpapi', 'brave', 'tavily'];

/** A search failure the model should read. */
/**
 * The provider to use: the configured one (its key must be set), else the first whose key is set. Throws an Error
 * whose message says which variable to set; the tool's availability check shows it.
 */
export function chooseProvider(
  configured: ProviderName | undefined,
  env: NodeJS.ProcessEnv,
): { name: ProviderName; key: string } {
  if (configured) {
    const key = env[PROVIDERS[configured].keyEnv];
    if (!key) throw new Error(`web.search_provider is ${configured} but ${PROVIDERS[configured].keyEnv} is not set`);
    return { name: configured, key };
  }
  for (const name of ORDER) {
    const key = env[PROVIDERS[name].keyEnv];
    if (key) return { name, key };
  }
  throw new Error('no search key: set SERPAPI_API_KEY, BRAVE_API_KEY or TAVILY_API_KEY');
}

/** Runs one search; throws a Web.SearchFailed TetherError with a message for the model on any failure. */
export async function search(
  name: ProviderName,
  key: string,
  query: string,
  limit: number,
  opts: { timeoutMs: number; userAgent: string; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<SearchResult[]> {
  const p = PROVIDERS[name];
  const base = (opts.env[p.baseEnv] || p.defaultBase).replace(/\/+$/, '');
  const { url, init } = p.request(base, key, query, limit);
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'user-agent': opts.userAgent },
      signal,
    });
    text = await res.text();
  } catch (err) {
    if (deadline.aborted)
      throw new TetherError('Web.SearchFailed', `${p.label} did not answer within ${opts.timeoutMs / 1000} s`);
    if (opts.signal?.aborted) throw new TetherError('Web.SearchFailed', `the ${p.label} search was cancelled`);
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    throw new TetherError('Web.SearchFailed', `could not reach ${p.label} at ${base}: ${cause}`);
  }
  if (res.status === 401 || res.status === 403) {
    throw new TetherError('Web.SearchFailed', `${p.label} refused the API key (HTTP ${res.status}): check ${p.keyEnv}`);
  }
  if (res.status === 429)
    throw new TetherError('Web.SearchFailed', `rate limited by ${p.label} (HTTP 429); wait before searching again`);
  if (!res.ok)
    throw new TetherError('Web.SearchFailed', `${p.label} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new TetherError(
      'Web.SearchFailed',
      `${p.label} answered with something that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  return p
    .results(body)
    .filter((r) => r.url !== '')
    .slice(0, limit);
}
