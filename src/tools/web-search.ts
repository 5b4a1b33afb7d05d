// The `web_search` tool: a web search through SerpAPI, Brave Search or Tavily, whichever has a key. Worker-only.
import { z } from 'zod';
import { currentConfig } from '../config/current.js';
import { registry } from '../registry/index.js';
import { toolError } from '../common/errors.js';
import { chooseProvider, search, SearchError } from '../web/search-providers.js';

function searchAvailable(): boolean {
  chooseProvider(currentConfig().web.search_provider, process.env);
  return true;
}

registry.register({
  name: 'web_search',
  toolset: 'web',
  emoji: '🔍',
  description:
    'Search the web. Returns up to `limit` results, each with title, url and snippet. ' +
    'Use web_extract to read the pages behind the results.',
  schema: z.object({
    query: z.string().min(1).max(2_000).describe('What to search for'),
    limit: z.number().int().min(1).max(20).optional().describe('Number of results (default 5, at most 20)'),
  }),
  checkFn: searchAvailable,
  sideEffects: 'read-only',
  parallelSafe: true,
  isAsync: true,
  timeoutSeconds: 60,
  handler: async ({ query, limit }, ctx) => {
    const web = currentConfig().web;
    let provider: ReturnType<typeof chooseProvider>;
    try {
      provider = chooseProvider(web.search_provider, process.env);
    } catch (err) {
      return toolError((err as Error).message);
    }
    try {
      const results = await search(provider.name, provider.key, query, limit ?? 5, {
        timeoutMs: web.timeout_seconds * 1000,
        userAgent: web.user_agent,
        env: process.env,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return JSON.stringify({ query, provider: provider.name, results });
    } catch (err) {
      if (err instanceof SearchError) return toolError(err.message);
      throw err;
    }
  },
});
