// The verdict on a command with the allowlist applied: what the approval activity and execute_code's terminal calls
// both decide from. Worker-only (reads config.yaml's allowlist).
import type { TetherConfig } from '../config/config.js';
import { allowlistMatch } from './allowlist.js';
import { readAllowlist } from './allowlist-file.js';
import { detect, type Verdict } from './detect.js';
import { loadBashParser } from './parser.js';

export interface Assessed {
  verdict: Verdict;
  /** The allowlist entry that covers a dangerous (not hardline) command, if any. */
  allowlistedBy?: string;
}

/** Analyses the command, then matches a dangerous one against command_allowlist (configuration and config.yaml). */
export async function assess(command: string, cwd: string, config: TetherConfig, configFile: string, onUnreadable?: (err: Error) => void): Promise<Assessed> {
  const verdict: Verdict = command.trim() === '' ? { command, dangerous: false, tier: null, findings: [] } : detect(await loadBashParser(), command, { cwd });
  if (verdict.tier !== 'dangerous') return { verdict };
  let entries = config.command_allowlist;
  try {
    entries = [...entries, ...readAllowlist(configFile)];
  } catch (err) {
    // An unreadable config.yaml leaves the start-up allowlist.
    onUnreadable?.(err as Error);
  }
  return { verdict, allowlistedBy: allowlistMatch(entries, { command, rules: verdict.findings.map((f) => f.rule) }) };
}
