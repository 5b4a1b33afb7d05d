// A code host's API used to change what protects a repository: branch protection and rulesets, collaborators and
// team access, deploy keys, webhooks, Actions permissions and security features (`gh api -X PUT .../protection`,
// `glab api`, curl to api.github.com). Reading them (GET) stays ordinary. Pure.
import { show, type Check } from './types.js';

/** API paths of settings that guard a repository or an organisation. */
const GUARDS =
  /(^|\/)(branches\/[^?]+\/protection|protected_branches|protected_tags|rulesets?|collaborators|invitations|teams\/[^/]+\/repos|members|memberships|keys|deploy_keys|hooks|actions\/permissions|actions\/secrets|environments\/[^/]+(\/deployment-branch-policies|\/?$)|vulnerability-alerts|automated-security-fixes|secret-scanning|code-scanning\/default-setup|push_rules|approval_rules|merge_request_approvals|private-vulnerability-reporting)(\/|\?|$)/;

/** `gh api [-X METHOD] PATH [-f k=v ...]`: fields without -X make a POST. */
function apiWrite(args: string[]): { method: string; path: string } | undefined {
  const at = args.indexOf('api');
  if (at < 0 || args.slice(0, at).some((t) => !t.startsWith('-'))) return undefined;
  let method: string | undefined;
  let path: string | undefined;
  let fields = false;
  for (let i = at + 1; i < args.length; i += 1) {
    const t = args[i]!;
    if (t === '-X' || t === '--method') method = args[(i += 1)];
    else if (/^(-X|--method=)/.test(t)) method = t.replace(/^(-X|--method=)/, '');
    else if (/^(-f|-F|--field|--raw-field|--input)$/.test(t)) {
      fields = true;
      i += 1;
    } else if (/^(-H|--header|-q|--jq|-t|--template|--hostname|-p|--preview|--cache)$/.test(t)) i += 1;
    else if (!t.startsWith('-') && path === undefined) path = t;
  }
  const m = (method ?? (fields ? 'POST' : 'GET')).toUpperCase();
  return path !== undefined && m !== 'GET' && m !== 'HEAD' ? { method: m, path } : undefined;
}

const codeHostApi: Check = (cmd, _io, ctx) => {
  const write = apiWrite(cmd.args.map((a) => a.text));
  if (write && GUARDS.test(write.path.replace(/^https?:\/\/[^/]+/, '')))
    ctx.add('repo-protection', `${show(cmd)} (${write.method} ${write.path})`);
};

/** curl/http/xh with a writing method against a code host's API path of the same kind. */
const httpApi: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  const url = w.find((t) => /^https?:\/\/(api\.github\.com|[^/]+\/api\/v[34])\//.test(t));
  if (!url) return;
  const x = w.findIndex((t) => t === '-X' || t === '--request');
  const method = (
    x >= 0 ? w[x + 1] : (w.find((t) => /^(-X|--request=)\w/.test(t))?.replace(/^(-X|--request=)/, '') ?? w[0])
  )?.toUpperCase();
  if (method && /^(PUT|PATCH|POST|DELETE)$/.test(method) && GUARDS.test(url.replace(/^https?:\/\/[^/]+/, '')))
    ctx.add('repo-protection', `${show(cmd)} (${method})`);
};

export const repoApiChecks: Record<string, Check> = {
  gh: codeHostApi,
  glab: codeHostApi,
  curl: httpApi,
  http: httpApi,
  https: httpApi,
  xh: httpApi,
};
