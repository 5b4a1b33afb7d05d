// The inbox page's helpers: building elements with text only (never HTML from data), fetching its JSON, times.
// Control characters arrive already made visible by the server (src/approval/visible-text.ts). Browser code, served
// as is (no build step).

/** An element with attributes and children; strings become text nodes, so nothing from a run is parsed as HTML. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';

export async function getJson(path) {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (res.status === 401) {
    window.location.assign('/inbox');
    throw new Error('the session ended: log in again with the link tether serve printed');
  }
  const body = await res.json();
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}

export async function postJson(path, payload) {
  const res = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf() },
    body: JSON.stringify(payload),
  });
  const body = await res.json().catch(() => ({}));
  return { status: res.status, body };
}

export function setStatus(text, bad = false) {
  const s = document.getElementById('status');
  if (!s) return;
  s.textContent = text;
  s.className = bad ? 'bad' : '';
}

export function timeLeft(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  if (!Number.isFinite(ms)) return '?';
  if (ms <= 0) return 'expired (counts as denied)';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

export function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}
