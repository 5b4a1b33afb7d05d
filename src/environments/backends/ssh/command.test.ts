// Unit tests for the SSH command line (checked by running it through this machine's sh) and signal exit codes. Worker-only.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signalExitCode, sshCommand } from './command.js';
import { shQuote } from '../../shell-scripts.js';

/** What the remote login shell does with the command line: parse it, then run the inner `sh -c`. */
function viaShell(commandLine: string): string {
  return execFileSync('sh', ['-c', commandLine], { encoding: 'utf8' });
}

describe('sshCommand', () => {
  it('passes scripts with quotes, dollars, backslashes and newlines through unchanged', () => {
    const script = `printf '%s|' "it's" '$HOME' "a\\\\b" \`echo tick\`\necho "second line"`;
    expect(viaShell(sshCommand(script, {}))).toBe(`it's|$HOME|a\\b|tick|second line\n`);
  });

  it('exports the configured variables before the script, quoted', () => {
    expect(viaShell(sshCommand('printf "%s/%s" "$A" "$B_2"', { A: "x 'y' $z", B_2: '' }))).toBe("x 'y' $z/");
  });

  it('quotes words', () => {
    expect(shQuote('')).toBe("''");
    expect(shQuote("a'b")).toBe("'a'\\''b'");
  });
});

describe('signalExitCode', () => {
  it('is 128 + the signal number, with or without the SIG prefix', () => {
    expect(signalExitCode('SIGTERM')).toBe(143);
    expect(signalExitCode('KILL')).toBe(137);
    expect(signalExitCode('SIGHUP')).toBe(129);
  });

  it('is 255 for a signal this platform does not know', () => {
    expect(signalExitCode('SIGNOPE')).toBe(255);
  });
});
