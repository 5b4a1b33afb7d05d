// Outward actions on a code forge, in the user's name and seen by others: pull/merge requests and issues opened,
// merged, closed, reopened, reviewed, edited or commented; releases, labels and repository changes; the same through
// the forge's API (gh/glab api, curl/http/requests to api.github.com, GitLab's /api/v4, Gitea's /api/v1,
// Bitbucket's API); merge requests opened by push options; release tags pushed. Reading (view, list, status, diff,
// checks, search) and local work (checkout, clone) stay ordinary. Pure.
import { keyTable } from '../engine/names.js';
import { forgeCall, type ForgeCheck } from '../programs/forge/call.js';
import type { RequestCheck } from '../programs/http/request.js';
import { show, type CheckContext } from './types.js';
import { judges } from './registry.js';

/** Per object, the verbs that act in the user's name. */
const ACTS = keyTable<RegExp>({
  pr: /^(create|new|merge|close|reopen|review|edit|ready|comment|lock|unlock|update-branch|revert)$/,
  mr: /^(create|new|merge|close|reopen|approve|revoke|update|note|rebase|edit|subscribe)$/,
  issue: /^(create|new|close|reopen|edit|update|comment|note|transfer|pin|unpin|lock|unlock|develop)$/,
  release: /^(create|new|upload|edit|update)$/,
  label: /^(create|new|edit|clone)$/,
  // `repo edit` settings are judged by the access rules (visibility public asks; private does not).
  repo: /^(create|new|archive|unarchive|rename|transfer|fork|set-default-branch)$/,
  discussion: /^(create|new|comment|close|edit)$/,
  project: /^(create|edit|close|item-add|item-create|item-edit|copy|link)$/,
  milestone: /^(create|edit|close)$/,
  snippet: /^(create|new)$/,
  gist: /^(edit)$/,
});

/** `gh pr merge 12`, `glab mr approve`, `tea pulls create`, `hub pull-request`, `az repos pr create`. */
export const forgeCli: ForgeCheck = ({ path, object, verb }, cmd, _io, ctx) => {
  // hub's release and issue verbs are the ones ACTS names.
  const hub = cmd.name === 'hub' && /^(pull-request|fork|create)$/.test(path[0] ?? '');
  if (hub || (object && verb && Object.hasOwn(ACTS, object) && ACTS[object]!.test(verb)))
    ctx.add('forge-write', show(cmd));
};

/** API paths of forge objects (GitHub, GitLab /api/v4, Gitea/Forgejo /api/v1, Bitbucket /2.0). */
const FORGE_API =
  /^https?:\/\/(api\.github\.com|[^/]+\/api\/v3|gitlab\.[^/]+\/api\/v4|[^/]+\/api\/v4\/projects|[^/]+\/api\/v1\/repos|api\.bitbucket\.org\/2\.0)\//i;

/** GraphQL mutations through `gh api graphql -f query='mutation {...}'`. */
export const forgeApi: ForgeCheck = ({ api }, cmd, _io, ctx) => {
  if (!api) return;
  if (api.path === 'graphql' && !cmd.args.some((a) => /\bmutation\b/.test(a.text))) return;
  ctx.add('forge-write', `${show(cmd)} (${api.method} ${api.path})`);
};

export const forgeRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const url = req.urls.map((t) => t.replace(/^["']|["']$/g, '')).find((t) => FORGE_API.test(t));
  if (!url) return;
  // A GraphQL query (not a mutation) is a read sent by POST.
  if (/\/graphql\/?$/.test(url) && !cmd.args.some((a) => /\bmutation\b/.test(a.text))) return;
  if (req.writes) ctx.add('forge-write', `${show(cmd)} (${req.method} ${url})`);
};

/** A tag that names a release (`v1.4.0`, `2.0.0-rc1`, `release-3`). */
const RELEASE_TAG = /^(refs\/tags\/)?(v?\d+(\.\d+)+([-+.][\w.]+)?|release[-/][\w.-]+)$/;
/** Options of git push that take a value (not a remote or a ref). */
const PUSH_VALUED = /^(-o|--push-option|--repo|--receive-pack|--exec)$/;

/**
 * git push of release tags (a release pipeline starts, the tag is published) and GitLab push options that open or
 * merge a merge request.
 */
export function gitPushToForge(args: string[], ctx: CheckContext, detail: string): void {
  const at = args.indexOf('push');
  if (at < 0) return;
  const rest = args.slice(at + 1);
  if (rest.some((t) => t === '-n' || t === '--dry-run')) return;
  const options = rest.flatMap((t, i) =>
    t === '-o' || t === '--push-option' ? [rest[i + 1] ?? ''] : /^--push-option=/.test(t) ? [t.slice(14)] : [],
  );
  if (options.some((o) => /^merge_request\.(create|merge_when_pipeline_succeeds|auto_merge)/.test(o)))
    ctx.add('forge-write', `${detail} (opens a merge request)`);
  const refs = rest.filter((t, i) => !t.startsWith('-') && !PUSH_VALUED.test(rest[i - 1] ?? '')).slice(1);
  if (
    rest.some((t) => t === '--tags' || t === '--follow-tags') ||
    refs.some((r) => RELEASE_TAG.test(r.replace(/^\+/, '').split(':').at(-1)!))
  )
    ctx.add('forge-write', `${detail} (pushes a release tag)`);
}

/** A request in code that changes something: `requests.post(`, `method: "DELETE"`, `urlopen(Request(`. */
const CODE_WRITE_REQUEST =
  /\b(requests|httpx|session|client)\.(post|put|patch|delete)\s*\(|method\s*[:=]\s*["'](POST|PUT|PATCH|DELETE)["']|urlopen\s*\(\s*Request\s*\(/i;
/** A GitHub, GitLab or Bitbucket API URL anywhere in code (FORGE_API reads a request's own URL). */
const FORGE_API_URL = /https?:\/\/(api\.github\.com|gitlab\.[\w.]+\/api\/v4|api\.bitbucket\.org)\//;

/** python/node code that writes to a forge API (requests.post to api.github.com). */
export function forgeCode(code: string, ctx: CheckContext, detail: string): void {
  if (CODE_WRITE_REQUEST.test(code) && FORGE_API_URL.test(code)) ctx.add('forge-write', detail);
}

judges(import.meta.url, { az: (cmd, io, ctx) => forgeCli(forgeCall(cmd), cmd, io, ctx) });
