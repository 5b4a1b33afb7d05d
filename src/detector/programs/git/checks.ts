// Every judgement of a git command on one reading of it (call.ts: global options, then the subcommand); each lives
// with its threat class's checks. Start here when one is judged wrongly (`npm run detector:who -- 'git ...'`). Pure.
import { gitRules } from '../../checks/agent-rules.js';
import { gitHide } from '../../checks/agents.js';
import { gitExfil } from '../../checks/exfil.js';
import { gitClone } from '../../checks/fetched.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { gitRm } from '../../checks/removed.js';
import { gitSettings } from '../../checks/settings.js';
import { gitHistory } from '../../checks/vcs.js';
import { gitCall, type GitCheck } from './call.js';
import { gitCommands } from './commands.js';

/** What a git command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly GitCheck[] = [
  gitExfil, // a credential added to history, a bundle of everything (exfiltration)
  gitHide, // an agent's settings hidden from status and diff (agent-safety)
  gitClone, // a cloned repository is fetched code until read (what runs it later asks)
  gitSettings, // -c and `git config` settings: TLS off, sources redirected, credential helpers (settings.ts rules)
  gitHistory, // what destroys commits, refs and changes; force pushes; hooks set by config (git-* rules)
  gitRm, // files removed: a scanner's workflow, an agent's rules, the pipeline, code owners, tests (removed.ts)
  gitRules, // an agent's rules taken from another branch (agent-safety)
  gitCommands, // what git runs by itself: hooks, configured programs, commands given in options
];

const git = familyCheck(gitCall, JUDGEMENTS);

judges(import.meta.url, { git }, { claims: true });
