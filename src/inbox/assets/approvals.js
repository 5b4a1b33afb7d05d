// The approvals view: polls the pending approvals every second and a half, adds new ones and removes decided
// ones without redrawing the rest (a reason being typed survives), and posts decisions. Each approval says what each
// choice gives before it is made, offers only the choices it allows, and shows its exact, whole text on request.
// Browser code.
import { el, getJson, postJson, setStatus, timeLeft, when } from './common.js';

const POLL_MS = 1500;
const main = document.getElementById('main');
const list = el('section', { id: 'approvals', 'aria-live': 'polite' });
const empty = el('p', { id: 'empty', class: 'muted' }, 'Nothing is waiting for a decision.');
main.append(el('h1', {}, 'Waiting for a decision'), empty, list);
/** Approval ids are unique within a run: a row is known by both. */
const rows = new Map();
const key = (a) => `${a.workflowId}\n${a.approvalId}`;

const LABELS = { once: 'Approve once', session: 'For this run', always: 'Always', deny: 'Deny…' };

async function decide(a, row, choice, reason) {
  row.classList.add('busy');
  for (const b of row.querySelectorAll('button')) b.disabled = true;
  const { status, body } = await postJson('/inbox/api/decide', {
    workflowId: a.workflowId,
    approvalId: a.approvalId,
    callId: a.callId,
    argsDigest: a.argsDigest,
    choice,
    ...(reason ? { reason } : {}),
  });
  if (status === 200 || status === 202) {
    rows.delete(key(a));
    row.remove();
    setStatus(
      `${choice === 'deny' ? 'Denied' : `Approved (${choice})`}: ${a.workflowId} ${a.approvalId}${status === 202 ? ' — queued until a worker runs it' : ''}`,
    );
  } else {
    row.classList.remove('busy');
    for (const b of row.querySelectorAll('button')) b.disabled = false;
    setStatus(`Not decided: ${body.error ?? `HTTP ${status}`}`, true);
  }
  refreshEmpty();
}

function denyForm(a, row) {
  const input = el('input', {
    type: 'text',
    name: 'reason',
    'data-reason': '',
    required: true,
    maxlength: 2000,
    placeholder: 'Why? The model sees this.',
  });
  const form = el(
    'form',
    { class: 'deny', hidden: true },
    el('label', {}, 'Reason ', input),
    el('button', { type: 'submit', 'data-confirm-deny': '' }, 'Deny'),
    el('button', { type: 'button', 'data-cancel-deny': '' }, 'Cancel'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const reason = input.value.trim();
    if (!reason) return input.focus();
    void decide(a, row, 'deny', reason);
  });
  form.querySelector('[data-cancel-deny]').addEventListener('click', () => (form.hidden = true));
  return form;
}

/**
 * The text with tether's own markers (⟨4,100 spaces⟩, ⟨redacted: 6 characters⟩) drawn apart from the command: the
 * text itself can never hold ⟨ or ⟩ unescaped, so each one is a marker. Text nodes only.
 */
function commandNodes(text) {
  return text.split(/(⟨[^⟩\n]*⟩)/).map((part, i) => (i % 2 === 1 ? el('span', { class: 'marker' }, part) : part));
}

/**
 * What the gate read to judge the call (config files, scripts it runs), apart from the command and folded: named in
 * the listing, whole once the exact text is read.
 */
function readsNode(reads) {
  if (!reads?.length) return null;
  const lines = (n) => `${n} line${n === 1 ? '' : 's'}`;
  const named = reads.map((r) => `${r.path} (${lines(r.lines)})`).join(', ');
  const whole = reads.every((r) => r.text !== undefined);
  return el(
    'details',
    { class: 'reads', 'data-reads': '' },
    el('summary', {}, `What it reads to judge it: ${named}`),
    whole
      ? reads.map((r) => [el('p', { class: 'muted' }, r.path), el('pre', { class: 'read' }, commandNodes(r.text))])
      : el('p', { class: 'muted' }, 'Show the exact text to read them.'),
  );
}

/** Replaces the listing's text (bounded, secrets redacted) by the exact, whole text read from the run. */
async function showExact(a, pre, button) {
  button.disabled = true;
  try {
    const exact = await getJson(
      `/inbox/api/exact?workflowId=${encodeURIComponent(a.workflowId)}&approvalId=${encodeURIComponent(a.approvalId)}`,
    );
    pre.replaceChildren(...commandNodes(exact.text));
    pre.setAttribute('data-exact', '');
    const reads = readsNode(exact.reads);
    const listed = pre.parentElement?.querySelector('[data-reads]');
    if (reads && listed) listed.replaceWith(reads);
    button.replaceWith(
      el('p', { class: 'muted', 'data-exact-note': '' }, `The exact text, all ${exact.chars} characters.`),
    );
  } catch (err) {
    button.disabled = false;
    setStatus(`Could not read the exact text: ${err.message ?? err}`, true);
  }
}

function render(a) {
  const row = el('article', { class: 'approval', 'data-approval-id': a.approvalId, 'data-workflow-id': a.workflowId });
  const deny = denyForm(a, row);
  const left = el('span', { class: 'left', 'data-expires': a.expiresAt }, timeLeft(a.expiresAt));
  const buttons = a.choices
    .filter((c) => c.offered)
    .map(({ choice, gives }) => {
      const b = el('button', { type: 'button', 'data-decision': choice, title: gives, class: choice }, LABELS[choice]);
      b.addEventListener('click', () => {
        if (choice !== 'deny') return void decide(a, row, choice);
        deny.hidden = false;
        deny.querySelector('input').focus();
      });
      return b;
    });
  const pre = el('pre', { class: 'command', 'data-command': '' }, commandNodes(a.text));
  const exact =
    a.shortened || a.redacted || a.reads?.length
      ? el('button', { type: 'button', 'data-show-exact': '' }, `Show the exact text (all ${a.chars} characters)`)
      : null;
  exact?.addEventListener('click', () => void showExact(a, pre, exact));
  row.append(
    ...[
      el(
        'header',
        {},
        el('a', { href: `/inbox/runs/${encodeURIComponent(a.workflowId)}`, class: 'run' }, a.workflowId),
        el('span', { class: 'muted' }, ` · ${a.tool} · ${a.approvalId}`),
      ),
      a.task ? el('p', { class: 'task' }, el('span', { class: 'muted' }, 'task: '), a.task) : null,
      a.network
        ? el('p', { class: 'network' }, 'network: ', el('code', { 'data-network': '' }, a.network), ' · asked by:')
        : null,
      a.cwd ? el('p', { class: 'cwd muted', 'data-cwd': '' }, `in ${a.cwd}`) : null,
      a.changed?.length
        ? el(
            'p',
            { class: 'warn', 'data-changed': '' },
            `Changed after it was judged or approved: ${a.changed.join(', ')}. Shown below as it is now.`,
          )
        : null,
      pre,
      a.hidden
        ? el(
            'p',
            { class: 'warn', 'data-hidden-note': '' },
            'It holds control, bidi, invisible or look-alike characters that could make it read as something else, shown as \\x.. and \\u.... escapes.',
          )
        : null,
      a.collapsed
        ? el('p', { class: 'muted' }, '⟨N spaces⟩ and ⟨N blank lines⟩ above stand for that many, counted.')
        : null,
      a.redacted
        ? el('p', { class: 'warn', 'data-redacted-note': '' }, 'A secret value is shown as ⟨redacted⟩ in this listing.')
        : null,
      a.shortened
        ? el(
            'p',
            { class: 'warn', 'data-shortened-note': '' },
            `Shortened in this listing: ${a.chars} characters in all.`,
          )
        : null,
      exact,
      el(
        'ul',
        { class: 'findings' },
        a.findings.map((f) =>
          el('li', { class: f.tier }, el('code', { 'data-rule': f.rule }, f.rule), ' ', f.description),
        ),
      ),
      readsNode(a.reads),
      el(
        'dl',
        { class: 'gives' },
        a.choices.flatMap((c) => [
          el('dt', {}, LABELS[c.choice].replace('…', '')),
          el(
            'dd',
            { 'data-gives': c.choice, class: c.offered ? '' : 'not-offered' },
            c.offered ? '' : '(not offered) ',
            c.gives,
          ),
        ]),
      ),
      el('p', { class: 'times muted' }, `asked ${when(a.askedAt)} · denied in `, left, ' unless decided'),
      el('div', { class: 'buttons' }, buttons),
      deny,
    ].filter(Boolean),
  );
  return row;
}

function refreshEmpty() {
  empty.hidden = rows.size > 0;
}

async function poll() {
  try {
    const { approvals, unanswered } = await getJson('/inbox/api/approvals');
    const seen = new Set();
    for (const a of approvals) {
      seen.add(key(a));
      if (rows.has(key(a))) continue;
      const row = render(a);
      rows.set(key(a), row);
      list.append(row);
    }
    for (const [id, row] of rows) {
      if (seen.has(id) || row.classList.contains('busy')) continue;
      rows.delete(id);
      row.remove();
    }
    refreshEmpty();
    if (unanswered.length > 0)
      setStatus(`No worker answered for ${unanswered.length} run(s); their approvals are not listed.`, true);
  } catch (err) {
    setStatus(String(err.message ?? err), true);
  }
}

setInterval(() => {
  for (const s of document.querySelectorAll('[data-expires]')) s.textContent = timeLeft(s.getAttribute('data-expires'));
}, 1000);
// The next poll starts after the last one ended: a slow listing never piles requests up.
async function loop() {
  await poll();
  document.body.dataset.ready = 'true';
  setTimeout(() => void loop(), POLL_MS);
}
void loop();
