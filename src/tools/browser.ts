// The browser_* tools (toolset `browser`): a headless Chromium page per task, driven by refs from text snapshots. Worker-only.
import { z } from 'zod';
import { registry } from '../registry/index.js';
import type { SchemaPatch } from '../registry/types.js';
import { back, click, close, navigate, screenshot, scroll, snapshot, type } from '../browser/actions.js';
import { browserAvailable } from '../browser/find-browser.js';
import { APPROVAL_WAIT_SECONDS } from '../tool-egress/call-network.js';

/** A page load, settling and a snapshot fit well inside this; the browser's own timeouts are shorter. */
const TIMEOUT_SECONDS = 120;
/** A 20,000-character snapshot plus its JSON escaping and the other fields. */
const MAX_RESULT_CHARS = 30_000;
const REF = z.string().min(1).describe('Element reference from the latest snapshot, such as e12');

const shared = {
  toolset: 'browser',
  checkFn: browserAvailable,
  parallelSafe: false,
  // A task's page lives on the worker that opened it: the agent loop sends the task's browser calls there.
  environment: true,
  isAsync: true,
  // A host the page needs may wait for a person's approval: the navigation waits with it.
  timeoutSeconds: TIMEOUT_SECONDS + APPROVAL_WAIT_SECONDS,
  maxResultChars: MAX_RESULT_CHARS,
} as const;

const NAVIGATE_DESCRIPTION =
  "Open a URL (http or https) in the task's browser tab and return its title, final URL and a text snapshot of the page. " +
  'Interactive elements in the snapshot carry refs like [e12] for browser_click and browser_type. Use the browser for pages ' +
  'that need JavaScript, clicks or forms. Every host the page reaches goes through the egress policy: one outside it ' +
  "needs a person's approval, and a refused one shows in `blocked`.";

/** Points the model at the faster text tools, but only at the ones it actually has. */
const mentionWebTools: SchemaPatch = (definition, finalToolNames) => {
  const faster = ['web_extract', 'web_search'].filter((t) => finalToolNames.has(t));
  if (faster.length === 0) return definition;
  const tools = faster.join(' / ');
  const hint = ` For reading a page's text or searching, ${tools} ${faster.length > 1 ? 'are' : 'is'} faster.`;
  return { ...definition, function: { ...definition.function, description: definition.function.description + hint } };
};

registry.register({
  ...shared,
  name: 'browser_navigate',
  emoji: '🌐',
  description: NAVIGATE_DESCRIPTION,
  schema: z.object({ url: z.string().min(1).describe('Absolute http:// or https:// URL') }),
  sideEffects: 'changes-world',
  schemaPatch: mentionWebTools,
  handler: ({ url }, ctx) => navigate(url, ctx),
});

registry.register({
  ...shared,
  name: 'browser_snapshot',
  emoji: '📄',
  description:
    'A text view of the current page: title, URL, scroll position, then its visible headings, text, links, buttons, ' +
    'inputs, selects, checkboxes and images in document order; interactive ones carry refs like [e12].',
  schema: z.object({}),
  sideEffects: 'read-only',
  handler: (_args, ctx) => snapshot(ctx),
});

registry.register({
  ...shared,
  name: 'browser_click',
  emoji: '👆',
  description:
    'Click the element with this ref (from the latest snapshot), wait for the page to settle, and return the new snapshot.',
  schema: z.object({ ref: REF }),
  sideEffects: 'changes-world',
  handler: ({ ref }, ctx) => click(ref, ctx),
});

registry.register({
  ...shared,
  name: 'browser_type',
  emoji: '⌨️',
  description:
    'Replace the text of an input, textarea or editable element (by ref) with `text`; submit: true presses Enter afterwards. Returns the new snapshot.',
  schema: z.object({
    ref: REF,
    text: z.string().describe('The text the field should hold'),
    submit: z.boolean().optional().describe('Press Enter after typing (default false)'),
  }),
  sideEffects: 'changes-world',
  handler: ({ ref, text, submit }, ctx) => type(ref, text, submit ?? false, ctx),
});

registry.register({
  ...shared,
  name: 'browser_scroll',
  emoji: '📜',
  description:
    'Scroll the page up or down (by default most of a screen) and return the new scroll position and snapshot.',
  schema: z.object({
    direction: z.enum(['up', 'down']),
    amount: z
      .number()
      .int()
      .positive()
      .max(100_000)
      .optional()
      .describe('Pixels to scroll (default 80% of the viewport height)'),
  }),
  sideEffects: 'changes-world',
  handler: ({ direction, amount }, ctx) => scroll(direction, amount, ctx),
});

registry.register({
  ...shared,
  name: 'browser_back',
  emoji: '⬅️',
  description: "Go back to the previous page in the tab's history and return its snapshot.",
  schema: z.object({}),
  sideEffects: 'changes-world',
  handler: (_args, ctx) => back(ctx),
});

registry.register({
  ...shared,
  name: 'browser_screenshot',
  emoji: '📸',
  description:
    'Save a PNG screenshot of the current page under the working directory (.tether-screenshots/) and return its path, width and height. ' +
    'full_page: true captures the whole page instead of the viewport.',
  schema: z.object({ full_page: z.boolean().optional().describe('Capture the whole scrollable page (default false)') }),
  sideEffects: 'read-only',
  handler: ({ full_page }, ctx) => screenshot(full_page ?? false, ctx),
});

registry.register({
  ...shared,
  name: 'browser_close',
  emoji: '❌',
  description: "Close the task's browser tab and forget its history; the next browser_navigate opens a fresh one.",
  schema: z.object({}),
  sideEffects: 'changes-world',
  handler: (_args, ctx) => close(ctx),
});
