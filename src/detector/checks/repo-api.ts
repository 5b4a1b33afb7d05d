// A code host's API used to change what protects a repository: branch protection and rulesets, collaborators and
// team access, deploy keys, webhooks, Actions permissions and security features (`gh api -X PUT .../protection`,
// `glab api`, curl to api.github.com). Reading them (GET) stays ordinary. Pure.
import type { ForgeCheck } from '../programs/forge/call.js';
import type { RequestCheck } from '../programs/http/request.js';
import { show } from './types.js';

/** API paths of settings that guard a repository or an organisation. */
const GUARDS =
  /(^|\/)(branches\/[^?]+\/protection|protected_branches|protected_tags|rulesets?|collaborators|invitations|teams\/[^/]+\/repos|members|memberships|keys|deploy_keys|hooks|actions\/permissions|actions\/secrets|environments\/[^/]+(\/deployment-branch-policies|\/?$)|vulnerability-alerts|automated-security-fixes|secret-scanning|code-scanning\/default-setup|push_rules|approval_rules|merge_request_approvals|private-vulnerability-reporting)(\/|\?|$)/;

export const repoApiCall: ForgeCheck = ({ api }, cmd, _io, ctx) => {
  if (api && GUARDS.test(api.path.replace(/^https?:\/\/[^/]+/, '')))
    ctx.add('repo-protection', `${show(cmd)} (${api.method} ${api.path})`);
};

/** An HTTP request with a writing method against a code host's API path of the same kind. */
export const repoApiRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const url = req.urls.find((t) => /^https?:\/\/(api\.github\.com|[^/]+\/api\/v[34])\//.test(t));
  if (url && req.writes && GUARDS.test(url.replace(/^https?:\/\/[^/]+/, '')))
    ctx.add('repo-protection', `${show(cmd)} (${req.method})`);
};
