// AI coding agents' own safety settings: their permission, sandbox and hook files (Claude Code, Codex, Gemini CLI,
// Cursor, aider, tether's own config), the flags and variables that start an agent with its checks bypassed, and git
// tricks that hide a change to those files. An agent that loosens its own (or another agent's) leash asks. Pure.
import type { Word } from '../engine/words.js';
import { show, valueAt, type Check, type CheckContext } from './types.js';
import { judges } from './registry.js';
import type { GitCheck } from '../programs/git/call.js';

/**
 * Files and directories that decide what an agent may do without asking: permission and sandbox settings, hooks
 * (which can veto a tool call), and tether's own config.yaml. Prompts and commands (`.claude/commands/`) are not.
 */
const SETTINGS =
  /(^|\/)(\.claude\/(settings[\w.-]*\.json|hooks(\/|$))|\.claude\.json$|\.claude\/?$|\.codex\/(config\.toml|[\w.-]*\.json|rules(\/|$))|\.codex\/?$|\.gemini\/(settings\.json|policies(\/|$))|\.gemini\/?$|\.cursor\/(cli[\w.-]*\.json|hooks(\.json|\/|$))|\.aider\.conf\.ya?ml$|\.tether\/(config\.ya?ml)?$|\.config\/(claude|codex|gemini|tether)\/)/;

/** A path that holds an agent's permission, sandbox or hook settings. */
export function isAgentSettings(path: string): boolean {
  const p = path.replace(/\/+$/, '/').replace(/\/\*$/, '/');
  return SETTINGS.test(p) || AGENT_CONTROL.test(p);
}

/**
 * Any agent's own control files, by name: MCP server lists (tools the agent may call, and which it may call without
 * asking: `autoApprove`), allowlists, approval logs, permission, trust, sandbox and hook files, in a directory named
 * for an agent (`.agent/allowlist.txt`, `~/.cursor/mcp.json`, `.vscode/mcp.json`, `claude_desktop_config.json`).
 */
const AGENT_CONTROL =
  /(^|\/)(\.mcp\.json$|claude_desktop_config\.json$|\.vscode\/mcp\.json$|(\.|\.config\/)(agents?|claude|codex|gemini|cursor|aider|continue|windsurf|codeium|roo|cline|kiro|amp|opencode|goose|copilot|tether|devin|openhands|qwen|crush)\/(.*\/)?[^/]*(mcp|allow|approv|permission|polic|trust|sandbox|hook|guard|deny)[^/]*$)/i;

/**
 * Flags that start an agent without its approvals or sandbox: Claude Code's --dangerously-skip-permissions and
 * bypassPermissions mode, Codex's --dangerously-bypass-approvals-and-sandbox, danger-full-access and `-a never`,
 * Gemini's --yolo, aider's --yes-always, and the like in other agents (any flag naming danger, yolo or a bypass).
 */
const BYPASS_FLAG =
  /^--?[\w-]*(dangerously|yolo|yes-always|bypass|skip-permissions|no-sandbox|disable-sandbox|allow-all|trust-all-tools|auto-approve-all)[\w-]*(=|$)/i;
/** Option values that mean the same: a permission mode, sandbox or approval policy with no checks. */
const BYPASS_VALUE =
  /^(bypassPermissions|danger-full-access|yolo|never|off|full-access|dangerous|unrestricted|sandbox_mode\s*=\s*"?danger-full-access"?|approval_policy\s*=\s*"?never"?|approval-mode\s*=\s*"?yolo"?)$/i;
const BYPASS_OPTS =
  /^--?(permission-mode|sandbox|s|ask-for-approval|a|approval-mode|approval_mode|c|config|approval|permissions)$/;

const agentCli: Check = (cmd, _io, ctx) => {
  const args = cmd.args.map((a) => a.text);
  const path = args.filter((t) => !t.startsWith('-'));
  if (
    // A flag that means the same for one agent only: cursor-agent --force runs every command without asking.
    (cmd.name === 'cursor-agent' && args.some((t) => /^(-f|--force)$/.test(t))) ||
    // `claude mcp add NAME -- CMD`: the agent gets new tools (a server it fetches and runs) without a person adding them.
    (path[0] === 'mcp' && /^(add|add-json|add-from-claude-desktop|install|import)$/.test(path[1] ?? '')) ||
    // `claude config add allowedTools ...`, `... config set autoApprove true`: permissions through the agent's own CLI.
    (path[0] === 'config' &&
      /^(add|set)$/.test(path[1] ?? '') &&
      /allow|approv|permission|trust|sandbox|hook|yolo|bypass/i.test(path[2] ?? '')) ||
    args.some((t, i) => BYPASS_FLAG.test(t) || BYPASS_VALUE.test(valueAt(args, i, BYPASS_OPTS) ?? ''))
  )
    ctx.add('agent-safety', show(cmd));
};

/** `git update-index --assume-unchanged|--skip-worktree FILE`: hides later changes to FILE from git status and diff. */
export const gitHide: GitCheck = ({ sub, rest }, cmd, _io, ctx) => {
  if (sub !== 'update-index' || !rest.some((a) => /^--(assume-unchanged|skip-worktree)$/.test(a.text))) return;
  if (rest.some((a) => isAgentSettings(a.text))) ctx.add('agent-safety', show(cmd));
};

/** Agent CLIs (their own names; a wrapper such as npx is peeled before this is reached). */
const AGENTS = `claude claude-code codex gemini-cli gemini aider cursor-agent amp opencode goose qwen crush copilot cline droid
  auggie kiro-cli q tether`;
judges(import.meta.url, { [AGENTS]: agentCli }, { claims: true });

/** Variables that turn an agent's sandbox or approvals off (AGENT_SANDBOX=0, CLAUDE_CODE_DISABLE_SANDBOX=1, ...YOLO=1). */
export function agentSafetyVariable(name: string, value: Word, ctx: CheckContext): void {
  const agent = /AGENT|CLAUDE|CODEX|GEMINI|CURSOR|AIDER|TETHER|COPILOT|OPENCODE|LLM|(^|_)AI_|^IS_SANDBOX$/i;
  if (!agent.test(name) || !/SANDBOX|APPROVAL|PERMISSION|YOLO|SAFETY|GUARDRAIL/i.test(name)) return;
  const v = value.text.trim().toLowerCase();
  const on = /^(1|true|yes|on)$/.test(v);
  const off = /^(0|false|no|off|none|never|disabled?|bypass\w*|yolo|danger-full-access)$/.test(v);
  // IS_SANDBOX=1 claims a sandbox, which lets Claude Code skip its permission checks as root.
  const negative = /DISABLE|SKIP|BYPASS|(^|_)NO_|YOLO|DANGER|UNSAFE|ALLOW_ALL|^IS_SANDBOX$/i.test(name);
  if ((negative && on) || (!negative && off)) ctx.add('agent-safety', `${name}=${value.text}`);
}
