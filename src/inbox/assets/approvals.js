// The approvals view: polls the pending approvals every second and a half, adds new ones and removes decided
// ones without redrawing the rest (a reason being typed survives), and posts decisions. Browser code.
import { el, getJson, postJson, setStatus, timeLeft, when } from './common.js';

const POLL_MS = 1500;
const main = document.getElementById('main');
const list = el('section', { id: 'approvals', 'aria-live': 'polite' });
const empty = el('p', { id: 'empty', class: 'muted' }, 'Nothing is waiting for a decision.');
main.append(el('h1', {}, 'Waiting for a decision'), empty, list);
/** Approval ids are unique within a run: a row is known by both. */
const rows = new Map();
const key = (a) => `${a.workflowId}\n${a.approvalId}`;

const CHOICES = [
  ['once', 'Approve once', 'Run this call'],
  ['session', 'For this run', 'Approve this call, and this rule for the rest of the run'],
  ['always', 'Always', "Approve, and add the rule to config.yaml's command_allowlist"],
  ['deny', 'Deny…', 'Refuse: the model is told, with your reason'],
];

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

function render(a) {
  const row = el('article', { class: 'approval', 'data-approval-id': a.approvalId, 'data-workflow-id': a.workflowId });
  const deny = denyForm(a, row);
  const left = el('span', { class: 'left', 'data-expires': a.expiresAt }, timeLeft(a.expiresAt));
  const buttons = CHOICES.map(([choice, label, title]) => {
    const b = el('button', { type: 'button', 'data-decision': choice, title, class: choice }, label);
    b.addEventListener('click', () => {
      if (choice !== 'deny') return void decide(a, row, choice);
      deny.hidden = false;
      deny.querySelector('input').focus();
    });
    return b;
  });
  row.append(
    ...[
      el(
        'header',
        {},
        el('a', { href: `/inbox/runs/${encodeURIComponent(a.workflowId)}`, class: 'run' }, a.workflowId),
        el('span', { class: 'muted' }, ` · ${a.tool} · ${a.approvalId}`),
      ),
      a.task ? el('p', { class: 'task' }, el('span', { class: 'muted' }, 'task: '), a.task) : null,
      networkTarget(a)
        ? el(
            'p',
            { class: 'network' },
            'network: ',
            el('code', { 'data-network': '' }, networkTarget(a)),
            ' · asked by:',
          )
        : null,
      el('pre', { class: 'command', 'data-command': '' }, a.command),
      a.hidden
        ? el(
            'p',
            { class: 'warn' },
            'The command holds control or invisible characters, shown above as \\x.. and \\u.... escapes.',
          )
        : null,
      a.redacted ? el('p', { class: 'warn' }, 'What looked like a secret is shown as [REDACTED ...] here.') : null,
      a.shortened ? el('p', { class: 'warn' }, 'Shortened here: tether status shows the whole command.') : null,
      el(
        'ul',
        { class: 'findings' },
        a.findings.map((f) =>
          el('li', { class: f.tier }, el('code', { 'data-rule': f.rule }, f.rule), ' ', f.description),
        ),
      ),
      el('p', { class: 'times muted' }, `asked ${when(a.askedAt)} · denied in `, left, ' unless decided'),
      el('div', { class: 'buttons' }, buttons),
      deny,
    ].filter(Boolean),
  );
  return row;
}

/** HOST:PORT of a network approval (from its rule: network:HOST:PORT), or undefined for a command's. */
function networkTarget(a) {
  if (a.tool !== 'network') return undefined;
  return a.findings.find((f) => f.rule.startsWith('network:'))?.rule.slice('network:'.length);
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
