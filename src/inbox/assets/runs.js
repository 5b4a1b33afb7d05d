// The runs view: recent runs with their status, and one run's transcript (turns, tool calls with their arguments
// and results, answers) with the approvals decided in it and who decided them. Browser code.
import { el, getJson, postJson, setStatus, when } from './common.js';

const main = document.getElementById('main');
/** append and replaceChildren would show a null as the text "null". */
const present = (...nodes) => nodes.filter(Boolean);
const runLink = (id) => el('a', { href: `/inbox/runs/${encodeURIComponent(id)}` }, id);
/** Tokens in / out, and the cost when the worker's config.yaml prices the model. */
const tokens = (t) =>
  `${t.inputTokens} in / ${t.outputTokens} out${t.costUsd === undefined ? '' : ` · $${t.costUsd.toFixed(t.costUsd < 0.01 ? 6 : 4)}`}`;
const statusBadge = (s) =>
  el('span', { class: `badge ${String(s).toLowerCase()}`, 'data-status': s }, String(s).toLowerCase());

async function showRuns() {
  const { runs } = await getJson('/inbox/api/runs');
  const body = el(
    'tbody',
    {},
    runs.map((r) =>
      el(
        'tr',
        { 'data-workflow-id': r.workflowId },
        el('td', {}, runLink(r.workflowId)),
        el('td', {}, statusBadge(r.status)),
        el('td', { class: 'task' }, r.task ?? ''),
        el('td', {}, when(r.startTime)),
        el('td', {}, r.closeTime ? when(r.closeTime) : ''),
        el('td', { class: 'tokens' }, r.tokens ? tokens(r.tokens) : ''),
      ),
    ),
  );
  main.replaceChildren(
    ...present(
      el('h1', {}, 'Recent runs'),
      runs.length === 0 ? el('p', { class: 'muted' }, 'No runs yet.') : null,
      el(
        'table',
        { class: 'runs' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['run', 'status', 'task', 'started', 'closed', 'tokens'].map((h) => el('th', {}, h)),
          ),
        ),
        body,
      ),
    ),
  );
}

const ROLE_LABELS = { system: 'system prompt', user: 'task / message', assistant: 'model', tool: 'tool result' };

function entry(e) {
  const label = e.role === 'assistant' && e.tool ? 'model · tool call' : (ROLE_LABELS[e.role] ?? e.role);
  return el(
    'li',
    { class: `entry ${e.role}`, 'data-role': e.role, 'data-seq': e.seq },
    el('div', { class: 'meta muted' }, `turn ${e.turn} · ${label}${e.tool ? ` · ${e.tool}` : ''}`),
    el('pre', {}, e.content),
  );
}

function decided(d) {
  const who =
    d.source === 'person' ? `${d.by ?? 'a person'}${d.claimedBy ? ` (claimed: ${d.claimedBy})` : ''}` : d.source;
  return el(
    'li',
    { class: `decided ${d.choice}`, 'data-approval-id': d.approvalId, 'data-choice': d.choice },
    el(
      'div',
      { class: 'meta' },
      `${d.choice === 'deny' ? 'denied' : `approved (${d.choice}${d.asked ? `; ${d.asked} was asked, not offered` : ''})`} by `,
      el('strong', { 'data-by': '' }, who),
      ` · ${when(d.decidedAt)} · ${d.tool}`,
    ),
    el('pre', {}, d.command),
    d.reason ? el('p', {}, 'reason: ', d.reason) : null,
  );
}

const short = (id) => id.slice(0, 12);
const count = (n, what) => `${n} ${what}`;

/** What changed after a checkpoint, in words, with the first few paths. */
function changedAfter(c) {
  const a = c.changedAfter;
  if (!a) return 'what changed after it is not known';
  const total = a.added + a.modified + a.deleted;
  const until = a.until === 'now' ? 'since then' : 'before the next checkpoint';
  if (total === 0) return `nothing changed ${until}`;
  const paths = [...a.paths.deleted, ...a.paths.modified, ...a.paths.added].slice(0, 6);
  return `${until}: ${count(a.added, 'added')}, ${count(a.modified, 'changed')}, ${count(a.deleted, 'deleted')} (${paths.join(', ')}${total > paths.length ? ', …' : ''})`;
}

async function restore(r, c, item) {
  for (const b of item.querySelectorAll('button')) b.disabled = true;
  const { status, body } = await postJson('/inbox/api/restore', { workflowId: r.workflowId, id: c.id });
  if (status === 200) {
    const done = body.changes.filter((x) => x.action !== 'kept').length;
    const kept = body.changes.filter((x) => x.action === 'kept').length;
    setStatus(
      `Restored to checkpoint ${short(c.id)}: ${done} change(s)${kept ? `, ${kept} path(s) kept as they were` : ''}; undo with checkpoint ${short(body.undo)}`,
    );
    await showRun(r.workflowId);
  } else {
    for (const b of item.querySelectorAll('button')) b.disabled = false;
    setStatus(`Not restored: ${body.error ?? `HTTP ${status}`}`, true);
  }
}

/** A checkpoint with what changed after it and a restore button that asks once more before it acts. */
function checkpoint(r, c) {
  const running = r.status === 'RUNNING';
  const item = el('li', { class: `checkpoint ${c.kind}`, 'data-checkpoint-id': c.id, 'data-turn': c.turn });
  const confirm = el(
    'div',
    { class: 'confirm', hidden: true },
    el(
      'p',
      {},
      `Put ${c.cwd} back as it was here? Files added after it are removed. A checkpoint is taken first, so this can be undone.`,
    ),
    el('button', { type: 'button', 'data-confirm-restore': '' }, 'Restore'),
    el('button', { type: 'button', 'data-cancel-restore': '' }, 'Cancel'),
  );
  const ask = el(
    'button',
    {
      type: 'button',
      'data-restore': '',
      disabled: running,
      title: running
        ? 'The run is still running: cancel it first (or use tether rollback --force)'
        : 'Restore the task directory to this checkpoint',
    },
    'Restore…',
  );
  ask.addEventListener('click', () => (confirm.hidden = false));
  confirm.querySelector('[data-confirm-restore]').addEventListener('click', () => void restore(r, c, item));
  confirm.querySelector('[data-cancel-restore]').addEventListener('click', () => (confirm.hidden = true));
  const what =
    c.kind === 'rollback'
      ? `taken before a rollback to ${short(c.rollbackTo ?? '')}`
      : `before turn ${c.turn} · ${c.tool ?? ''} ${c.args ?? ''}`;
  item.append(
    el('div', { class: 'meta' }, el('code', {}, short(c.id)), ` checkpoint · ${when(c.at)} · ${what}`),
    el('div', { class: 'summary', 'data-changed-after': '' }, changedAfter(c)),
    ask,
    confirm,
  );
  return item;
}

/** The transcript with each turn's checkpoint next to the model's call that it preceded. */
function transcriptWithCheckpoints(r) {
  const byTurn = new Map(r.checkpoints.filter((c) => c.kind === 'turn').map((c) => [c.turn, c]));
  const placed = new Set();
  const items = [];
  for (const e of r.transcript) {
    items.push(entry(e));
    const c = e.role === 'assistant' && e.tool ? byTurn.get(e.turn) : undefined;
    if (c && !placed.has(c.id)) {
      placed.add(c.id);
      items.push(checkpoint(r, c));
    }
  }
  return { items, rest: r.checkpoints.filter((c) => !placed.has(c.id)) };
}

async function showRun(id) {
  const r = await getJson(`/inbox/api/runs/${encodeURIComponent(id)}`);
  document.title = `tether · ${r.workflowId}`;
  const { items, rest } = transcriptWithCheckpoints(r);
  main.replaceChildren(
    ...present(
      el('h1', {}, r.workflowId, ' ', statusBadge(r.runStatus ?? r.status)),
      el(
        'p',
        { class: 'muted' },
        `started ${when(r.startTime)}${r.closeTime ? ` · closed ${when(r.closeTime)}` : ''}`,
        r.tokens ? el('span', { 'data-tokens': '' }, ` · ${tokens(r.tokens)} tokens`) : null,
      ),
      r.task ? el('p', { class: 'task' }, el('span', { class: 'muted' }, 'task: '), r.task) : null,
      r.answer
        ? el('section', { class: 'answer' }, el('h2', {}, 'Answer'), el('pre', { 'data-answer': '' }, r.answer))
        : null,
      r.error ? el('section', { class: 'error' }, el('h2', {}, 'Error'), el('pre', {}, r.error)) : null,
      r.pendingApprovals.length > 0
        ? el(
            'p',
            { class: 'warn' },
            `${r.pendingApprovals.length} approval(s) waiting: `,
            el('a', { href: '/inbox' }, 'decide in the inbox'),
          )
        : null,
      r.network && r.network.length > 0
        ? el(
            'section',
            { class: 'network' },
            el('h2', {}, 'Network'),
            el(
              'ul',
              { class: 'hosts' },
              r.network.map((n) =>
                el(
                  'li',
                  { 'data-host': n.host, 'data-decision': n.decision },
                  el('code', {}, n.host.includes(':') ? `[${n.host}]:${n.port}` : `${n.host}:${n.port}`),
                  ` ${n.decision} (${n.by}) · ${n.count} connection(s) · last ${when(n.at)}`,
                ),
              ),
            ),
          )
        : null,
      el('h2', {}, 'Decided approvals'),
      r.stateUnavailable
        ? el('p', { class: 'muted' }, 'No worker answered the state query, so the decisions are not known right now.')
        : r.decided.length === 0
          ? el('p', { class: 'muted' }, 'None.')
          : el('ul', { class: 'decisions' }, r.decided.map(decided)),
      el('h2', {}, 'Transcript'),
      r.transcript.length === 0
        ? el(
            'p',
            { class: 'muted' },
            `No transcript in ${r.transcriptMissing ?? 'the store'} (workers write it under their TETHER_HOME; serve from the same one to see it).`,
          )
        : el('ol', { class: 'transcript' }, items),
      rest.length > 0 ? el('h2', {}, 'Other checkpoints') : null,
      rest.length > 0
        ? el(
            'ul',
            { class: 'checkpoints' },
            rest.map((c) => checkpoint(r, c)),
          )
        : null,
    ),
  );
  return r.status;
}

const REFRESH_MS = 2000;
const id = /^\/inbox\/runs\/([^/]+)$/.exec(window.location.pathname)?.[1];

/** Draws the view; a running run (or the list) is drawn again every two seconds, after the last drawing ended. */
async function refresh() {
  let again = !id;
  try {
    if (id) again = (await showRun(decodeURIComponent(id))) === 'RUNNING';
    else await showRuns();
  } catch (err) {
    setStatus(String(err.message ?? err), true);
  }
  document.body.dataset.ready = 'true';
  if (again) setTimeout(() => void refresh(), REFRESH_MS);
}
void refresh();
