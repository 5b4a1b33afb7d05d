import { describe, expect, it } from 'vitest';
import { chooseProvider, PROVIDERS } from './search-providers.js';

describe('chooseProvider', () => {
  it('takes the configured provider, else the first with a key, in the order SerpAPI, Brave, Tavily', () => {
    expect(chooseProvider(undefined, { TAVILY_API_KEY: 't', BRAVE_API_KEY: 'b' })).toEqual({ name: 'brave', key: 'b' });
    expect(chooseProvider(undefined, { TAVILY_API_KEY: 't', SERPAPI_API_KEY: 's' })).toEqual({
      name: 'serpapi',
      key: 's',
    });
    expect(chooseProvider('tavily', { TAVILY_API_KEY: 't', SERPAPI_API_KEY: 's' })).toEqual({
      name: 'tavily',
      key: 't',
    });
  });

  it('names the variables to set when a key is missing', () => {
    expect(() => chooseProvider(undefined, { BRAVE_API_KEY: '' })).toThrow(
      'no search key: set SERPAPI_API_KEY, BRAVE_API_KEY or TAVILY_API_KEY',
    );
    expect(() => chooseProvider('serpapi', { BRAVE_API_KEY: 'b' })).toThrow(
      'web.search_provider is serpapi but SERPAPI_API_KEY is not set',
    );
  });
});

describe('provider requests and answers', () => {
  it('builds each documented request shape', () => {
    const serp = PROVIDERS.serpapi.request('https://serpapi.com', 'K', 'a b', 3);
    expect(serp.url).toBe('https://serpapi.com/search?engine=google&q=a+b&num=3&api_key=K&output=json');
    const brave = PROVIDERS.brave.request('https://api.search.brave.com', 'K', 'a b', 3);
    expect(brave.url).toBe('https://api.search.brave.com/res/v1/web/search?q=a+b&count=3');
    expect(brave.init.headers).toMatchObject({ 'x-subscription-token': 'K' });
    const tavily = PROVIDERS.tavily.request('https://api.tavily.com', 'K', 'a b', 3);
    expect(tavily.init).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer K' } });
    expect(JSON.parse(String(tavily.init.body))).toMatchObject({ query: 'a b', max_results: 3 });
  });

  it('maps each answer to title, url and snippet, tolerating missing fields', () => {
    expect(
      PROVIDERS.serpapi.results({ organic_results: [{ title: 'T', link: 'https://a', snippet: 'S' }, 'junk'] }),
    ).toEqual([{ title: 'T', url: 'https://a', snippet: 'S' }]);
    expect(PROVIDERS.brave.results({ web: { results: [{ title: 'T', url: 'https://b' }] } })).toEqual([
      { title: 'T', url: 'https://b', snippet: '' },
    ]);
    expect(PROVIDERS.brave.results({ type: 'search' })).toEqual([]);
    expect(PROVIDERS.tavily.results({ results: [{ title: 'T', url: 'https://c', content: 'C' }] })).toEqual([
      { title: 'T', url: 'https://c', snippet: 'C' },
    ]);
  });

  it("treats SerpAPI's empty-page message as no results and other errors as errors", () => {
    expect(PROVIDERS.serpapi.results({ error: "Google hasn't returned any results for this query." })).toEqual([]);
    expect(() => PROVIDERS.serpapi.results({ error: 'Your account has run out of searches.' })).toThrow(
      expect.objectContaining({ code: 'Web.SearchFailed' }),
    );
  });
});
