// The command line an SSH channel runs for a script, and exit codes for signals. Worker-only.
import { constants } from 'node:os';
import { exportLines, shQuote } from '../../shell-scripts.js';

/** The command line sent over the channel: the settings' env exported, then the script, under `sh -c`. */
export function sshCommand(script: string, env: Record<string, string>): string {
  return `sh -c ${shQuote(exportLines(env) + script)}`;
}

/** 128 + n for signal n, as a shell reports it. ssh2 names signals `SIGTERM`; some servers send `TERM`. */
export function signalExitCode(signal: string): number {
  const name = (signal.startsWith('SIG') ? signal : `SIG${signal}`) as NodeJS.Signals;
  const n = constants.signals[name];
  // An unknown signal name still means "killed": 255 is what OpenSSH's client exits with when it has no status.
  return n === undefined ? 255 : 128 + n;
}
