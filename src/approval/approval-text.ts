// The one rendering of text a person approves, for every channel (CLI, inbox, ACP, webhook, visibility listing):
// hidden characters escaped (visible-text.ts), long runs of spaces and blank lines collapsed visibly
// (`⟨4,100 spaces⟩`, `⟨200 blank lines⟩`), and, where the view is shared, secret values replaced by a marked span
// that stops at shell metacharacters. Markers use ⟨ ⟩, which the text itself can never show unescaped.
// Workflow-safe (pure).
import { secretSpans } from './approval-redact.js';
import { visibleText } from './visible-text.js';

export interface RenderedText {
  text: string;
  /** Control, invisible, space-like or look-alike characters were escaped. */
  hidden: boolean;
  /** Something that looked like a secret is shown as a ⟨redacted⟩ span. */
  redacted: boolean;
  /** Long runs of spaces or blank lines are shown as a count. */
  collapsed: boolean;
}

export interface RenderOptions {
  /** Replace secret values by a marked span (views others can read: visibility, the inbox listing). */
  redact?: boolean;
  /** Line feeds as `\n` (one-line views: a title, a finding), or kept (the default). */
  newlines?: 'keep' | 'escape';
}

/** Runs of spaces and tabs longer than this are shown as a count (an indented script keeps its indentation). */
const BLANK_RUN = 32;
/** This many blank lines in a row or more are shown as one line with their count. */
const BLANK_LINES = 3;

/** 4100 → "4,100", without Intl (its output depends on the locale). */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const BLANKS = new RegExp(`[ \\t]{${BLANK_RUN + 1},}|\\n(?:[ \\t]*\\n){${BLANK_LINES},}`, 'g');

function blankMarker(run: string): string {
  if (run.startsWith('\n')) {
    const lines = run.split('\n').length - 2;
    return `\n⟨${thousands(lines)} blank lines⟩\n`;
  }
  const tabs = run.split('\t').length - 1;
  const spaces = run.length - tabs;
  const what = tabs === 0 ? 'spaces' : spaces === 0 ? 'tabs' : 'spaces and tabs';
  return `⟨${thousands(run.length)} ${what}⟩`;
}

/** Text with its blank runs collapsed and the rest escaped. */
function plain(text: string, opts: RenderOptions, flags: { collapsed: boolean }): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(BLANKS)) {
    out += visibleText(text.slice(at, m.index), opts);
    const marker = blankMarker(m[0]);
    out += opts.newlines === 'escape' ? marker.replace(/\n/g, '\\n') : marker;
    at = m.index + m[0].length;
    flags.collapsed = true;
  }
  return out + visibleText(text.slice(at), opts);
}

/** Text as a person is shown it before approving. */
export function renderApprovalText(raw: string, opts: RenderOptions = {}): RenderedText {
  const flags = { collapsed: false };
  const spans = opts.redact ? secretSpans(raw) : [];
  let text = '';
  let at = 0;
  for (const s of spans) {
    text += plain(raw.slice(at, s.start), opts, flags);
    text += `⟨redacted: ${thousands(s.end - s.start)} characters⟩`;
    at = s.end;
  }
  text += plain(raw.slice(at), opts, flags);
  const bare = visibleText(raw, opts);
  return {
    text,
    hidden: bare !== (opts.newlines === 'escape' ? raw.replace(/\n/g, '\\n') : raw),
    redacted: spans.length > 0,
    collapsed: flags.collapsed,
  };
}
