// The in-page DOM walk behind browser_snapshot, kept as JavaScript source so no bundler helper leaks into it. Worker-only.

/** One visible, meaningful element or text run of the page, at its container depth. */
interface SnapshotLine {
  depth: number;
  text: string;
}

/** What the walk returns; `next` is the ref counter after the refs it handed out. */
export interface PageWalk {
  title: string;
  url: string;
  scrollY: number;
  scrollHeight: number;
  viewportHeight: number;
  lines: SnapshotLine[];
  truncated: boolean;
  next: number;
}

interface WalkOptions {
  /** Refs already handed out in this session; new ones continue after it, so a stale ref never hits a new element. */
  start: number;
  maxLines: number;
}

/**
 * Runs in the page. Interactive elements get a `data-tether-ref` attribute (kept across snapshots of the same
 * document); hidden subtrees (display:none, aria-hidden, hidden) are skipped, invisible or zero-size elements print
 * nothing themselves. Text is printed in document order between the elements it surrounds.
 */
const WALK_SOURCE = String.raw`(opts) => {
  let counter = opts.start;
  let truncated = false;
  const lines = [];
  const clean = (s, max) => {
    const t = String(s || '').replace(/\s+/g, ' ').trim();
    return t.length > max ? t.slice(0, max - 1) + '…' : t;
  };
  const q = (s) => JSON.stringify(s);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'SVG', 'IFRAME', 'OBJECT', 'EMBED', 'CANVAS', 'OPTION', 'DATALIST']);
  const CONTAINERS = { FORM: 'form', NAV: 'nav', MAIN: 'main', HEADER: 'header', FOOTER: 'footer', ASIDE: 'aside', DIALOG: 'dialog', UL: 'list', OL: 'list', TABLE: 'table', FIELDSET: 'fieldset' };
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'textbox', 'combobox', 'searchbox', 'slider', 'spinbutton', 'treeitem']);
  const push = (depth, text) => {
    if (lines.length >= opts.maxLines) { truncated = true; return; }
    lines.push({ depth, text });
  };
  const ref = (el) => {
    let r = el.getAttribute('data-tether-ref');
    if (!r) { counter += 1; r = 'e' + counter; el.setAttribute('data-tether-ref', r); }
    return r;
  };
  const interactive = (el, tag) => {
    if (tag === 'A') return el.hasAttribute('href');
    if (tag === 'BUTTON' || tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'SUMMARY') return true;
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    return el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
  };
  const ariaLabel = (el) => {
    const aria = el.getAttribute('aria-label');
    if (aria) return clean(aria, 120);
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const text = by.split(/\s+/).map((id) => { const n = document.getElementById(id); return n ? n.innerText : ''; }).join(' ');
      if (clean(text, 120)) return clean(text, 120);
    }
    if (el.labels && el.labels.length > 0) return clean(Array.from(el.labels).map((l) => l.innerText).join(' '), 120);
    return '';
  };
  const label = (el) => {
    const named = ariaLabel(el);
    if (named) return named;
    const text = clean(el.innerText, 120);
    if (text) return text;
    const img = el.querySelector('img[alt]');
    if (img && clean(img.alt, 120)) return clean(img.alt, 120);
    return clean(el.getAttribute('title') || '', 120);
  };
  const href = (el) => {
    try {
      const u = new URL(el.href, location.href);
      const shown = u.origin === location.origin ? u.pathname + u.search + u.hash : u.href;
      return clean(shown, 120);
    } catch { return clean(el.getAttribute('href'), 120); }
  };
  const control = (el, tag) => {
    const flags = (el.disabled ? ' disabled' : '') + (el.required ? ' required' : '');
    if (tag === 'A') return 'link ' + q(label(el)) + ' -> ' + href(el);
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button ' + q(label(el)) + flags;
    if (tag === 'SELECT') {
      const options = Array.from(el.options).map((o) => clean(o.label || o.text, 40));
      const chosen = Array.from(el.selectedOptions).map((o) => clean(o.label || o.text, 40));
      const list = options.length > 20 ? options.slice(0, 20).join(', ') + ', … (' + options.length + ' options)' : options.join(', ');
      return 'select ' + q(ariaLabel(el) || el.name || '') + ' selected=' + q(chosen.join(', ')) + ' options: ' + list + flags;
    }
    if (tag === 'TEXTAREA' || tag === 'INPUT') {
      const type = tag === 'TEXTAREA' ? 'textarea' : (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'hidden') return null;
      if (type === 'checkbox' || type === 'radio') return type + ' ' + q(ariaLabel(el) || el.name || el.value || '') + (el.checked ? ' checked' : '') + flags;
      if (type === 'submit' || type === 'button' || type === 'reset' || type === 'image') return 'button ' + q(clean(el.value || el.alt || ariaLabel(el) || type, 120)) + flags;
      const parts = [tag === 'TEXTAREA' ? 'textarea' : 'input[' + type + ']'];
      const named = ariaLabel(el);
      if (named) parts.push(q(named));
      if (el.name) parts.push('name=' + q(el.name));
      if (el.placeholder) parts.push('placeholder=' + q(clean(el.placeholder, 80)));
      // A password's value is never shown, only whether one is set.
      parts.push('value=' + q(type === 'password' ? (el.value ? '(set)' : '') : clean(el.value, 200)));
      return parts.join(' ') + flags;
    }
    const role = el.getAttribute('role') || 'editable';
    const checked = el.getAttribute('aria-checked') === 'true' ? ' checked' : '';
    return role + ' ' + q(label(el)) + checked;
  };
  const visit = (el, depth, quiet) => {
    if (truncated) return;
    const tag = el.tagName.toUpperCase();
    if (SKIP.has(tag) || el.hidden || el.getAttribute('aria-hidden') === 'true') return;
    const style = getComputedStyle(el);
    if (style.display === 'none') return;
    const rect = el.getBoundingClientRect();
    const shown = style.visibility !== 'hidden' && style.visibility !== 'collapse' && (rect.width > 0 || rect.height > 0 || style.display === 'contents');
    if (interactive(el, tag)) {
      if (!shown) return;
      const text = control(el, tag);
      if (text) push(depth, text + ' [' + ref(el) + ']');
      return;
    }
    if (tag === 'IMG') {
      if (shown && clean(el.alt, 120)) push(depth, 'image ' + q(clean(el.alt, 120)));
      return;
    }
    let childDepth = depth;
    let at = -1;
    let quietChildren = quiet;
    if (/^H[1-6]$/.test(tag)) {
      const text = clean(el.innerText, 300);
      if (shown && text) push(depth, '#'.repeat(Number(tag[1])) + ' ' + text);
      quietChildren = true;
    } else if (Object.prototype.hasOwnProperty.call(CONTAINERS, tag)) {
      const name = clean(el.getAttribute('aria-label') || '', 80);
      at = lines.length;
      push(depth, CONTAINERS[tag] + (name ? ' ' + q(name) : ''));
      childDepth = depth + 1;
    }
    const before = lines.length;
    let run = '';
    const flush = () => {
      const text = clean(run, 300);
      run = '';
      if (text && shown && !quietChildren) push(childDepth, text);
    };
    const children = el.shadowRoot ? [...el.shadowRoot.childNodes, ...el.childNodes] : [...el.childNodes];
    for (const child of children) {
      if (child.nodeType === 3) run += ' ' + child.nodeValue;
      else if (child.nodeType === 1) { flush(); visit(child, childDepth, quietChildren); }
    }
    flush();
    // A container with nothing visible inside prints nothing.
    if (at >= 0 && lines.length === before && !truncated) lines.splice(at, 1);
  };
  const root = document.body || document.documentElement;
  if (root) visit(root, 0, false);
  return {
    title: document.title,
    url: location.href,
    scrollY: Math.round(window.scrollY),
    scrollHeight: document.documentElement ? document.documentElement.scrollHeight : 0,
    viewportHeight: window.innerHeight,
    lines,
    truncated,
    next: counter,
  };
}`;

/** The expression page.evaluate runs: the walk applied to its options. */
export function walkExpression(opts: WalkOptions): string {
  return `(${WALK_SOURCE})(${JSON.stringify(opts)})`;
}
