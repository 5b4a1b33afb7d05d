// The inbox's HTML: one small shell per view whose content the page's own script draws (with textContent only, so
// nothing from a run is ever parsed as HTML), and the page shown to a visitor without a session. Worker-only.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside HTML text and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export type View = 'approvals' | 'runs' | 'run';

const TITLES: Record<View, string> = { approvals: 'Approvals', runs: 'Runs', run: 'Run' };

export function viewPage(view: View, csrf: string): string {
  const nav = (target: View, href: string): string =>
    `<a href="${href}"${target === view || (view === 'run' && target === 'runs') ? ' aria-current="page"' : ''}>${TITLES[target]}</a>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${escapeHtml(csrf)}">
<title>tether · ${TITLES[view]}</title><link rel="stylesheet" href="/inbox/assets/inbox.css"></head>
<body data-view="${view}"><header><strong>tether</strong><nav>${nav('approvals', '/inbox')}${nav('runs', '/inbox/runs')}</nav>
<span id="status" role="status"></span></header>
<main id="main"></main>
<script type="module" src="/inbox/assets/${view === 'approvals' ? 'approvals' : 'runs'}.js"></script>
</body></html>
`;
}

export function loginPage(why: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tether · log in</title>
<link rel="stylesheet" href="/inbox/assets/inbox.css"></head>
<body><main><h1>Log in</h1><p id="login-needed">Log in with the link <code>tether serve</code> printed
(the line starting with <code>inbox:</code>).</p><p class="muted">${escapeHtml(why)}</p></main></body></html>
`;
}

/** Sent with the new session's cookie: moves on to the inbox at once (a link too, should refreshes be off). */
export function loggedInPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/inbox">
<title>tether · logged in</title></head><body><p>Logged in. <a href="/inbox">Open the inbox</a>.</p></body></html>
`;
}
