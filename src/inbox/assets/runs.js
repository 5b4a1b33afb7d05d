// The runs view: recent runs with their status, and one run's transcript (turns, tool calls with their arguments
// and results, answers) with the approvals decided in it and who decided them. Browser code.
import { el, getJson, setStatus, when } from './common.js';

const main = document.getElementById('main');
/** append and replaceChildren would show a null as the text "null". */
const present = (...nodes) => nodes.filter(Boolean);
const runLink = (id) => el('a', { href: `/inbox/runs/${encodeURIComponent(id)}` }, id);
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
            ['run', 'status', 'task', 'started', 'closed'].map((h) => el('th', {}, h)),
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

async function showRun(id) {
  const r = await getJson(`/inbox/api/runs/${encodeURIComponent(id)}`);
  document.title = `tether · ${r.workflowId}`;
  main.replaceChildren(
    ...present(
      el('h1', {}, r.workflowId, ' ', statusBadge(r.runStatus ?? r.status)),
      el('p', { class: 'muted' }, `started ${when(r.startTime)}${r.closeTime ? ` · closed ${when(r.closeTime)}` : ''}`),
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
        : el('ol', { class: 'transcript' }, r.transcript.map(entry)),
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
