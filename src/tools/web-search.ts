// The `web_search` tool: a web search through SerpAPI, Brave Search or Tavily, whichever has a key. The provider's
// API (its host and key, set by the person) is reached without asking; the pages of its results are fetched by
// web_extract, through the egress policy. Worker-only.
import { z } from 'zod';
import { currentConfig } from '../config/current.js';
import { registry } from '../registry/index.js';
import { isTetherError, toolError } from '../common/errors.js';
import { chooseProvider, search } from '../web/search-providers.js';
import { toolNetwork } from '../tool-egress/network-mode.js';

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
    // The query goes to the provider: with no network for the run, nothing goes.
    const network = toolNetwork(ctx.backend);
    if (network.kind === 'none') return toolError(`web_search: ${network.why}`);
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
      if (isTetherError(err, 'Web.SearchFailed')) return toolError(err.message);
      throw err;
    }
  },
});
