// Approval of a terminal command an execute_code program asks for: the same verdict the approval activity reaches
// (command analysis, then command_allowlist from the configuration and config.yaml), decided at once because a
// running program cannot wait for a person. Worker-only.
import { allowlistMatch } from '../approval/allowlist.js';
import { readAllowlist } from '../approval/allowlist-file.js';
import { detect } from '../approval/detect.js';
import { loadBashParser } from '../approval/parser.js';
import { configPath, type TetherConfig } from '../config/config.js';

/** Why the command may not run from inside a program, or undefined when it may. */
export async function refusalFor(command: string, cwd: string, config: TetherConfig, configFile = configPath()): Promise<string | undefined> {
  if (command.trim() === '') return undefined;
  const verdict = detect(await loadBashParser(), command, { cwd });
  if (!verdict.dangerous) return undefined;
  if (verdict.tier === 'hardline') {
    const what = verdict.findings.filter((f) => f.tier === 'hardline').map((f) => `[${f.rule}] ${f.description}`).join('; ');
    return `Refused: this command is never run, whatever the approval mode: ${what}`;
  }
  if (config.approvals.mode === 'off') return undefined;
  let entries = config.command_allowlist;
  try {
    entries = [...entries, ...readAllowlist(configFile)];
  } catch {
    // As in the approval activity: an unreadable config.yaml leaves the start-up allowlist.
  }
  if (allowlistMatch(entries, { command, rules: verdict.findings.map((f) => f.rule) }) !== undefined) return undefined;
  const what = verdict.findings.map((f) => `[${f.rule}] ${f.description}`).join('; ');
  return (
    `Refused: this command needs a person's approval (${what}), and execute_code cannot pause for a decision. ` +
    'Run it with the terminal tool directly, outside the program.'
  );
}
