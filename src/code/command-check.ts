// Approval of a terminal command an execute_code program asks for: the same verdict the approval activity reaches
// (command analysis, then command_allowlist from the configuration and config.yaml), decided at once because a
// running program cannot wait for a person. Worker-only.
import { assess } from '../approval/assess.js';
import { configPath, type TetherConfig } from '../config/config.js';

/** Why the command may not run from inside a program, or undefined when it may. */
export async function refusalFor(command: string, cwd: string, config: TetherConfig, configFile = configPath()): Promise<string | undefined> {
  const { verdict, allowlistedBy } = await assess(command, cwd, config, configFile);
  if (!verdict.dangerous) return undefined;
  if (verdict.tier === 'hardline') {
    const what = verdict.findings.filter((f) => f.tier === 'hardline').map((f) => `[${f.rule}] ${f.description}`).join('; ');
    return `Refused: this command is never run, whatever the approval mode: ${what}`;
  }
  if (config.approvals.mode === 'off' || allowlistedBy !== undefined) return undefined;
  const what = verdict.findings.map((f) => `[${f.rule}] ${f.description}`).join('; ');
  return (
    `Refused: this command needs a person's approval (${what}), and execute_code cannot pause for a decision. ` +
    'Run it with the terminal tool directly, outside the program.'
  );
}
