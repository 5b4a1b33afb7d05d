// The one rendering of text a person approves, for every channel (CLI, inbox, ACP, webhook, visibility listing):
// hidden characters escaped (visible-text.ts), long runs of spaces and blank lines collapsed visibly
// (`⟨4,100 spaces⟩`, `⟨200 blank lines⟩`), and, where the view is shared, secret values replaced by a marked span
// that stops at shell metacharacters. Markers use ⟨ ⟩, which the text itself can never show unescaped.
// Workflow-safe (pure).
import type { ReadFiles } from '../common/approval-types.js';
import { secretSpans, secretValues } from './approval-redact.js';
import { hasDeceptiveCharacters, visibleText, type VisibleOptions } from './visible-text.js';

export interface RenderedText {
  text: string;
  /**
   * It holds characters that could make it read as something else (controls, bidi, invisible, space-like or
   * look-alike characters), shown as escapes. A tab is shown (as \t, or as itself in a file) but does not count.
   */
  hidden: boolean;
  /** Something that looked like a secret is shown as a ⟨redacted⟩ span. */
  redacted: boolean;
  /** Long runs of spaces or blank lines are shown as a count. */
  collapsed: boolean;
}

/** Besides how line feeds and a file's whitespace are shown (visible-text.ts): */
export interface RenderOptions extends VisibleOptions {
  /** Replace secret values by a marked span (views others can read: visibility, the inbox listing). */
  redact?: boolean;
  /**
   * With `redact`: the secret values of the command this text was derived from (a finding, a title, a log line),
   * hidden wherever they appear in it (`secretValues` of the command).
   */
  secrets?: readonly string[];
}

/** Runs of spaces and tabs longer than this are shown as a count (an indented script keeps its indentation). */
const BLANK_RUN = 32;
/** This many blank lines in a row or more are shown as one line with their count. */
const BLANK_LINES = 3;

/** 4100 → "4,100", without Intl (its output depends on the locale). */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const BLANKS = new RegExp(`[ \\t]{${BLANK_RUN + 1},}|\\n(?:[ \\t]*\\r?\\n){${BLANK_LINES},}`, 'g');

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
  const spans = opts.redact ? secretSpans(raw, opts.secrets) : [];
  let text = '';
  let at = 0;
  for (const s of spans) {
    text += plain(raw.slice(at, s.start), opts, flags);
    text += `⟨redacted: ${thousands(s.end - s.start)} characters⟩`;
    at = s.end;
  }
  text += plain(raw.slice(at), opts, flags);
  return { text, hidden: hasDeceptiveCharacters(raw, opts), redacted: spans.length > 0, collapsed: flags.collapsed };
}

/**
 * A pending approval's text, split into what the model asked to run and the files the gate read, when `readFiles`
 * describes its layout exactly; otherwise all of it is the command (nothing is ever moved out of it on a guess: a
 * command may well hold a line `# path:` of its own).
 */
export function splitShown(
  command: string,
  readFiles: ReadFiles | undefined,
): { asked: string; files: { path: string; content: string }[] } {
  const whole = { asked: command, files: [] };
  if (!readFiles || !Number.isInteger(readFiles.at) || readFiles.at < 0 || readFiles.at > command.length) return whole;
  const files: { path: string; content: string }[] = [];
  let at = readFiles.at;
  for (const f of readFiles.files) {
    const header = `\n# ${f.path}:\n`;
    if (!Number.isInteger(f.chars) || f.chars < 0 || !command.startsWith(header, at)) return whole;
    const start = at + header.length;
    if (start + f.chars > command.length) return whole;
    files.push({ path: f.path, content: command.slice(start, start + f.chars) });
    at = start + f.chars;
  }
  return at === command.length ? { asked: command.slice(0, readFiles.at), files } : whole;
}

/** Lines of a text, as a person counts them (a last line without its line feed counts). */
export const lineCount = (text: string): number => (text === '' ? 0 : text.replace(/\n$/, '').split('\n').length);

/** How every text derived from one approval is rendered: redacted (where shared) with the command's own values. */
export type DerivedText = (text: string, opts?: { newlines?: 'keep' | 'escape'; whitespace?: 'file' }) => RenderedText;

/**
 * One rendering for a command and everything made from it: where the view is shared, a value its command line
 * hides (`API_TOKEN=…`) is hidden in its findings, titles, file names and lines too, even where it appears expanded.
 */
export function derivedRenderer(command: string, redact: boolean): DerivedText {
  const secrets = redact ? secretValues(command) : [];
  return (text, opts = {}) => renderApprovalText(text, { redact, secrets, newlines: 'escape', ...opts });
}

/**
 * `text` cut to at most `max` characters, never inside a secret value (cut before it instead), so a short view
 * (a title) never shows part of a secret that redaction could no longer recognise.
 */
export function cutOutsideSecrets(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  for (const s of secretSpans(text)) if (s.start < cut && s.end > cut) cut = s.start;
  return `${text.slice(0, cut)}…`;
}
