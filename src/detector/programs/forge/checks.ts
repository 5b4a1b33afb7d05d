// Every judgement of a code forge's CLI command (gh, glab, hub, tea, berg) on one reading of it (call.ts); each lives
// with its threat class's checks. Start here when one is judged wrongly (`npm run detector:who -- 'gh ...'`). Pure.
import { forgePipeline } from '../../checks/ci.js';
import { forgeExfil } from '../../checks/exfil.js';
import { forgeApi, forgeCli } from '../../checks/forge.js';
import { forgeMessage } from '../../checks/outbound.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { repoApiCall } from '../../checks/repo-api.js';
import { names } from '../../engine/names.js';
import { literal } from '../../engine/words.js';
import { forgeCall, type ForgeCheck } from './call.js';

/** hub's own commands; it hands every other one to git (`hub push --force` is `git push --force`). */
const HUB_OWN = names(
  'alias api browse ci-status compare create delete fork gist help issue pr pull-request release sync',
);

const hubAsGit: ForgeCheck = ({ path }, cmd, _io, ctx) => {
  if (cmd.name === 'hub' && !HUB_OWN.includes(path[0] ?? 'help')) ctx.argv([literal('git'), ...cmd.args]);
};

/** What a forge command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly ForgeCheck[] = [
  forgeCli, // pull requests, issues, releases, repositories changed in the user's name (forge-write)
  forgeApi, // the same through `gh api`/`glab api` (forge-write)
  repoApiCall, // branch protection, collaborators, keys, hooks changed through the API (repo-protection)
  forgeExfil, // a credential handed to the forge: a gist of a key, a value read from one (exfiltration)
  forgeMessage, // comments in the user's name, merges past branch protection (send-message, access-grant)
  forgePipeline, // pipeline secrets from this machine's credentials, deploying workflows started (ci-*)
  hubAsGit, // what hub hands to git, judged as git
];

const forge = familyCheck(forgeCall, JUDGEMENTS);

judges(import.meta.url, { 'gh glab hub tea berg': forge });
