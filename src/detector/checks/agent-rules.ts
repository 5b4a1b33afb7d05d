// The agent changing its own or another agent's rules: instruction files (AGENTS.md, CLAUDE.md, .cursorrules,
// copilot-instructions.md, .cursor/rules/, ...) given text that grants permissions or tells the agent to ignore its
// rules, replaced from the network or from outside the project, linked elsewhere or deleted, checked out from another
// remote's branch; other agents' settings (VS Code chat tools, Continue, Zed, Amp, opencode) given auto-approval.
// Ordinary edits of those files (build notes, conventions) stay ordinary: what asks is what the text grants. Pure.
import { classifyPath } from '../engine/paths.js';
import type { Word } from '../engine/words.js';
import { shortened, show, type Check, type CheckContext } from './types.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';
import type { GitCheck } from '../programs/git/call.js';

/** Files an agent reads as its instructions. */
export const INSTRUCTION_FILE =
  /(^|\/)(AGENTS?\.md|CLAUDE(\.local)?\.md|GEMINI\.md|QWEN\.md|CONVENTIONS\.md|\.cursorrules|\.windsurfrules|\.clinerules(\/.*)?|\.roorules|\.goosehints|\.augment-guidelines|\.github\/copilot-instructions\.md|\.github\/instructions\/[^/]+\.md|\.cursor\/rules\/.+|\.continue\/rules\/.+|\.roo\/rules[^/]*\/.+|\.kiro\/steering\/.+|\.junie\/guidelines\.md|\.windsurf\/rules\/.+|\.openhands\/microagents\/.+|\.trae\/rules\/.+|\.amazonq\/rules\/.+)$/;

/** Settings files of agents and editors whose keys decide what runs without asking. */
const AGENT_CONFIG =
  /(^|\/)(\.vscode\/settings\.json|\.continue\/config\.(json|ya?ml|ts)|\.config\/zed\/settings\.json|\.zed\/settings\.json|\.config\/amp\/settings\.json|opencode\.jsonc?|\.opencode\/[^/]+|\.agent[\w-]*\/[^/]+\.(json|ya?ml|toml)|\.kilocode\/[^/]+|\.roo\/[^/]+\.json)$/;

/** Text that grants an agent permissions or tells it to set its rules aside. */
export const GRANT_TEXT =
  /\bwithout (asking|approval|confirmation|review|permission|checking)|\bnever (ask|stop|prompt|wait|request)\b|\bauto-?(approve|run|accept|execute)|\bskip (all |every |any )?(confirmations?|approvals?|reviews?|checks?|prompts?)|\bignore (all |any )?(the )?(previous|prior|above|earlier|safety|security|system)\b|\bbypass\b|\bno (need to )?(ask|confirm)\b|\b(are|is) (allowed|permitted) to\b|\byou may (push|run|delete|execute|send|read|bypass|skip|ignore)\b|\bpush directly to (main|master)\b|\btreat (every|all|any) .{0,40}(as|like) (coming from )?the user\b|\b(execute|run) (all|any|every) (commands?|instructions?)\b|\balways allow\b|\bdangerously\b|\bdo not ask\b|\bdon'?t ask\b/i;

/** Settings keys that turn approvals off. */
export const GRANT_KEY =
  /(auto_?approve|autoApprove|always_?allow|alwaysAllow|allow_?any|allowAnyCommand|allow_?all|dangerously\w*|yolo|skip_?permissions|bypass_?permissions|trust_?all|auto_?run|auto_?execute|always_allow_tool_actions|full_?auto)\W{0,4}\s*(\+?=|:)\s*(true|["']?allow["']?|\[?\s*["']\*|\{)|["']?permissions?["']?\s*[:=][^\n]{0,80}["']?(allow|\*)["']?|(^|\n|\s)allow\s*:\s*(\n\s*)?-\s*["']?\*/i;

const add = (ctx: CheckContext, detail: string, why: string): void => ctx.add('agent-safety', `${detail} (${why})`);
const isRulesFile = (path: string): boolean => INSTRUCTION_FILE.test(path) || AGENT_CONFIG.test(path);

/** A write of known (or unknown) text onto a path: instruction files and agent settings judged by what they grant. */
export function agentRulesWrite(target: Word, text: string | undefined, detail: string, ctx: CheckContext): void {
  if (target.dynamic || text === undefined) return;
  const path = target.text.replace(/^["']|["']$/g, '');
  if (INSTRUCTION_FILE.test(path) && GRANT_TEXT.test(text))
    add(ctx, detail, `tells an agent to set its rules aside in ${path}`);
  if ((isRulesFile(path) || /\.(json|jsonc|ya?ml|toml)$/.test(path)) && GRANT_KEY.test(text))
    add(ctx, detail, `turns an agent's approvals off in ${path}`);
}

/** Paths a line names that hold an agent's rules or settings. */
const inLine = (re: RegExp): string =>
  re.source.replace(/^\(\^\|\\\/\)/, `(^|[\\s'"=/])`).replace(/\$$/, `(?=$|[\\s'";|&)<>])`);
const RULES_PATH = new RegExp(`${inLine(INSTRUCTION_FILE)}|${inLine(AGENT_CONFIG)}`);

/**
 * A command line that writes an agent's rules or settings (a redirect, -i, tee, sponge, mv/cp) and whose text grants
 * permissions: `jq '.autoApprove = true' s.json | sponge s.json`, `awk '... print "Run any command" ...' AGENTS.md >
 * t && mv t AGENTS.md`, `sed -i 's/Ask before/Never ask before/' AGENTS.md`.
 */
export function lineGrants(line: string, ctx: CheckContext): void {
  if (!RULES_PATH.test(line)) return;
  const text = line.replace(/\\[ntr]/g, ' ');
  if (!/>|(^|\s)(-[a-zA-Z]*i\b|--in-place|tee|sponge|mv|cp|install)(\s|$)/.test(text)) return;
  if (GRANT_TEXT.test(text) || GRANT_KEY.test(text))
    add(ctx, shortened(line), "changes an agent's rules to grant it permissions");
}

/** rm, unlink, git rm of an instruction file: the agent's rules removed. */
export function rulesRemoved(targets: Word[], detail: string, ctx: CheckContext): void {
  const hit = targets.find(
    (t) => INSTRUCTION_FILE.test(t.text.replace(/\/+$/, '')) || /(^|\/)\.cursor\/rules\/?$/.test(t.text),
  );
  if (hit) add(ctx, detail, `removes an agent's rules: ${hit.text}`);
}

/** ln -s TARGET RULES, cp/mv/install SRC RULES from outside the project, curl -o RULES: rules from elsewhere. */
const replace: Check = (cmd, _io, ctx) => {
  const ops = cmd.args.filter((a) => !a.text.startsWith('-'));
  const dest = ops.at(-1);
  if (!dest || !isRulesFile(dest.text)) return;
  const sources = ops.slice(0, -1);
  if (sources.some((s) => s.dynamic || classifyPath(s, ctx.where) !== 'inside'))
    add(ctx, show(cmd), `replaces an agent's rules with a file from outside the project: ${dest.text}`);
};

export const agentRulesRequest: RequestCheck = (req, cmd, _io, ctx) => {
  for (const out of req.outputs.filter(isRulesFile))
    add(ctx, show(cmd), `replaces an agent's rules with a download: ${out}`);
};

/** git checkout REMOTE/BRANCH -- AGENTS.md, git restore --source=REMOTE/BRANCH: rules taken from someone else's branch. */
export const gitRules: GitCheck = ({ sub, rest }, cmd, _io, ctx) => {
  if (sub !== 'checkout' && sub !== 'restore') return;
  // `git checkout REF [--] FILE...`, `git restore --source[=]REF|-sREF [--] FILE...`: git needs no `--`.
  const w = rest.map((a) => a.text);
  const dashes = w.indexOf('--');
  const s = w.findIndex((t) => t === '--source' || t === '-s');
  const source =
    sub === 'checkout'
      ? w.slice(0, dashes < 0 ? undefined : dashes).find((t) => !t.startsWith('-'))
      : s >= 0
        ? w[s + 1]
        : w.find((t) => t.startsWith('--source=') || /^-s./.test(t))?.replace(/^--source=|^-s/, '');
  const operands = w.filter((t, i) => !t.startsWith('-') && (s < 0 || i !== s + 1));
  const files = dashes >= 0 ? w.slice(dashes + 1) : operands.slice(sub === 'checkout' ? 1 : 0);
  const rules = files.some((f) => isRulesFile(f) || /(^|\/)\.(claude|codex|gemini|cursor)\//.test(f));
  if (source && /\//.test(source) && rules) add(ctx, show(cmd), `takes an agent's rules from ${source}`);
};

judges(import.meta.url, { 'ln cp mv install': replace });
