// browser_snapshot's text view of a page: the in-page walk, bounded and formatted, and element refs. Worker-only.
import type { Locator, Page } from 'playwright-core';
import { walkExpression, type PageWalk } from './snapshot-script.js';

/** Characters of one snapshot the model gets; navigate, click, type, scroll and back return one too. */
const SNAPSHOT_MAX_CHARS = 20_000;
/** Lines the walk collects at most; a page past this is cut there even if the lines are short. */
const WALK_MAX_LINES = 3_000;

/** The header, then the lines indented by depth, cut at a line boundary with a notice when over `maxChars`. */
export function formatSnapshot(walk: PageWalk, maxChars = SNAPSHOT_MAX_CHARS): string {
  const head = [`Title: ${walk.title || '(untitled)'}`, `URL: ${walk.url}`];
  if (walk.scrollHeight > walk.viewportHeight) {
    head.push(
      `Scroll: ${walk.scrollY} of ${walk.scrollHeight - walk.viewportHeight} px (viewport ${walk.viewportHeight} px high)`,
    );
  }
  if (walk.lines.length === 0) head.push('(no visible content)');
  let out = head.join('\n');
  let shown = 0;
  for (const line of walk.lines) {
    const text = `\n${'  '.repeat(line.depth)}${line.text}`;
    // Room is kept for the notice so the whole result stays within maxChars.
    if (out.length + text.length > maxChars - 200) break;
    out += text;
    shown += 1;
  }
  const hidden = walk.lines.length - shown;
  if (hidden > 0 || walk.truncated) {
    const more = walk.truncated ? `at least ${hidden + 1}` : String(hidden);
    out += `\n[snapshot cut at ${maxChars} characters: ${more} more lines not shown; scroll, or follow a link to a narrower page]`;
  }
  return out;
}

/** Walks the page, handing out refs after `refsUsed`; returns the text and the new ref counter. */
export async function snapshotPage(page: Page, refsUsed: number): Promise<{ text: string; refsUsed: number }> {
  const walk = (await page.evaluate(walkExpression({ start: refsUsed, maxLines: WALK_MAX_LINES }))) as PageWalk;
  return { text: formatSnapshot(walk), refsUsed: Math.max(refsUsed, walk.next) };
}

/** `e12`, `[e12]` and `@e12` all mean ref e12; anything else is undefined. */
export function normalizeRef(raw: string): string | undefined {
  const m = /^\s*\[?@?(e\d+)\]?\s*$/.exec(raw);
  return m?.[1];
}

/** The element a ref names on this page, or an error message for the model. */
export async function locateRef(page: Page, raw: string): Promise<Locator | string> {
  const ref = normalizeRef(raw);
  if (!ref) return `ref ${JSON.stringify(raw)} is not an element reference: use one like e12 from browser_snapshot`;
  const locator = page.locator(`[data-tether-ref="${ref}"]`);
  if ((await locator.count()) === 0) {
    return `no element [${ref}] on the current page (refs belong to the snapshot they came from; the page may have changed): take a new browser_snapshot`;
  }
  return locator.first();
}
