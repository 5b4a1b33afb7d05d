// The `web_extract` tool: fetches up to five URLs and returns each page's readable text; every host it reaches (each
// redirect's too) is decided by the run's egress policy, like a command's connection. Worker-only.
import { z } from 'zod';
import { currentConfig } from '../config/current.js';
import { registry } from '../registry/index.js';
import { fetchPage } from '../web/fetch-page.js';
import { boundText, htmlToText } from '../web/readable.js';
import { isTetherError } from '../common/errors.js';
import { APPROVAL_WAIT_SECONDS, CallNetwork } from '../tool-egress/call-network.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'application/json']);
const ACCEPT = new Set([...HTML_TYPES, ...TEXT_TYPES]);

type PageResult =
  | { url: string; final_url: string; title: string; content: string; content_type: string; truncated?: boolean }
  | { url: string; error: string };

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the best guess for the web.
    return new TextDecoder('utf-8').decode(body);
  }
}

async function extractOne(url: string, net: CallNetwork, signal: AbortSignal | undefined): Promise<PageResult> {
  const web = currentConfig().web;
  try {
    const page = await fetchPage(url, {
      net,
      timeoutMs: web.timeout_seconds * 1000,
      maxBytes: web.max_bytes,
      userAgent: web.user_agent,
      acceptTypes: ACCEPT,
      ...(signal ? { signal } : {}),
    });
    const raw = decode(page.body, page.charset);
    const { title, text } = HTML_TYPES.has(page.contentType) ? await htmlToText(raw) : { title: '', text: raw };
    const bounded = boundText(text, web.max_chars);
    // The notice goes into the content too: the model reads the text, not always the flags beside it.
    const cutNotice = page.truncated
      ? `\n\n[... the page is larger than web.max_bytes (${web.max_bytes} bytes); it was not read past that]`
      : '';
    return {
      url,
      final_url: page.finalUrl,
      title,
      content: bounded.text + cutNotice,
      content_type: page.contentType,
      ...(page.truncated || bounded.cut ? { truncated: true } : {}),
    };
  } catch (err) {
    if (isTetherError(err, 'Web.FetchFailed', 'Web.AddressRefused')) return { url, error: err.message };
    return { url, error: `could not extract ${url}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

registry.register({
  name: 'web_extract',
  toolset: 'web',
  emoji: '📄',
  description:
    'Fetch web pages (1 to 5 http/https URLs) and return the readable text of each: the main content of HTML pages ' +
    '(without navigation and footers) with the title, or plain text, Markdown and JSON as they are. ' +
    'A page that fails gets an error of its own; the others are still returned. A host outside the egress policy ' +
    "needs a person's approval; a refused one is an error: do not retry it, ask the user.",
  schema: z.object({
    urls: z.array(z.string().min(1)).min(1).max(5).describe('URLs to fetch (http or https)'),
  }),
  sideEffects: 'read-only',
  parallelSafe: true,
  isAsync: true,
  timeoutSeconds: 120 + APPROVAL_WAIT_SECONDS,
  maxResultChars: 200_000,
  handler: async ({ urls }, ctx) => {
    const net = CallNetwork.of(ctx, 'web_extract');
    const results = await Promise.all(urls.map((url) => extractOne(url, net, ctx.signal)));
    return JSON.stringify({ results });
  },
});
