// The command line an SSH channel runs for a script, the filter that drops what the remote login shell printed before
// it, and exit codes for signals. Worker-only.
import { constants } from 'node:os';
import { exportLines, shQuote } from '../../shell-scripts.js';

/**
 * What the script's shell prints first, on each stream it owns. sshd runs the command through the user's login shell,
 * and that shell's startup files may print before the command starts (bash reads ~/.bashrc for sshd: "pyenv: command
 * not found", banners, `stty` complaints). Everything a stream carries before its marker is theirs, not the command's.
 */
export const START_MARKER = '\x1etether:ssh-start\x1e';
const PRINT_MARKER = `printf '\\036tether:ssh-start\\036'`;

/**
 * The command line sent over the channel: the start marker (on stdout, and on stderr too unless a PTY merges them),
 * the settings' env exported, then the script, under `sh -c`.
 */
export function sshCommand(script: string, env: Record<string, string>, pty = false): string {
  const markers = pty ? `${PRINT_MARKER}; ` : `${PRINT_MARKER}; ${PRINT_MARKER} >&2; `;
  return `sh -c ${shQuote(markers + exportLines(env) + script)}`;
}

/** Past this much output before the marker, only its tail is kept (shown if the marker never comes). */
const HELD_LIMIT = 64 * 1024;

/**
 * One stream's filter: holds output until the start marker, drops it with the marker, then passes everything through.
 * If the stream ends without a marker (the login shell failed before `sh` ran), `end()` gives back what it held, so
 * the reason reaches the person.
 */
export class StartMarkerFilter {
  private held: Buffer | undefined = Buffer.alloc(0);
  private readonly marker = Buffer.from(START_MARKER, 'latin1');

  /** The part of `chunk` that belongs to the command (empty while the marker has not come). */
  push(chunk: Buffer): Buffer {
    if (this.held === undefined) return chunk;
    const all = Buffer.concat([this.held, chunk]);
    const at = all.indexOf(this.marker);
    if (at === -1) {
      this.held = all.length > HELD_LIMIT ? all.subarray(all.length - HELD_LIMIT) : all;
      return Buffer.alloc(0);
    }
    this.held = undefined;
    return all.subarray(at + this.marker.length);
  }

  /** What was held when the stream ended without a marker. */
  end(): Buffer {
    const rest = this.held ?? Buffer.alloc(0);
    this.held = undefined;
    return rest;
  }
}

/** 128 + n for signal n, as a shell reports it. ssh2 names signals `SIGTERM`; some servers send `TERM`. */
export function signalExitCode(signal: string): number {
  const name = (signal.startsWith('SIG') ? signal : `SIG${signal}`) as NodeJS.Signals;
  const n = constants.signals[name];
  // An unknown signal name still means "killed": 255 is what OpenSSH's client exits with when it has no status.
  return n === undefined ? 255 : 128 + n;
}
