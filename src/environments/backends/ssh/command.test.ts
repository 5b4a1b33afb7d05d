// Unit tests for the SSH command line (checked by running it through this machine's sh) and signal exit codes. Worker-only.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signalExitCode, sshCommand, START_MARKER, StartMarkerFilter } from './command.js';
import { shQuote } from '../../shell-scripts.js';

/**
 * What the remote login shell does with the command line: parse it, then run the inner `sh -c`; a noisy startup file
 * prints first, and the transport's filter drops it.
 */
function viaShell(commandLine: string): string {
  const out = execFileSync('sh', ['-c', `echo 'startup noise'; ${commandLine}`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const filter = new StartMarkerFilter();
  return Buffer.concat([filter.push(out), filter.end()]).toString('utf8');
}

function through(filter: StartMarkerFilter, chunks: string[]): string {
  return [...chunks.map((c) => filter.push(Buffer.from(c, 'latin1'))), filter.end()].map(String).join('');
}

describe('sshCommand', () => {
  it('passes scripts with quotes, dollars, backslashes and newlines through unchanged', () => {
    const script = `printf '%s|' "it's" '$HOME' "a\\\\b" \`echo tick\`\necho "second line"`;
    expect(viaShell(sshCommand(script, {}))).toBe(`it's|$HOME|a\\b|tick|second line\n`);
  });

  it('exports the configured variables before the script, quoted', () => {
    expect(viaShell(sshCommand('printf "%s/%s" "$A" "$B_2"', { A: "x 'y' $z", B_2: '' }))).toBe("x 'y' $z/");
  });

  it('prints the start marker on stdout and stderr before the script, once on a PTY', () => {
    const both = execFileSync('sh', ['-c', `${sshCommand('echo run', {})} 2>&1`], { encoding: 'latin1' });
    expect(both).toBe(`${START_MARKER}${START_MARKER}run\n`);
    const pty = execFileSync('sh', ['-c', `${sshCommand('echo run', {}, true)} 2>&1`], { encoding: 'latin1' });
    expect(pty).toBe(`${START_MARKER}run\n`);
  });

  it('quotes words', () => {
    expect(shQuote('')).toBe("''");
    expect(shQuote("a'b")).toBe("'a'\\''b'");
  });
});

describe('StartMarkerFilter', () => {
  it('drops everything before the marker, even when the marker is split across chunks', () => {
    const [a, b] = [START_MARKER.slice(0, 5), START_MARKER.slice(5)];
    expect(through(new StartMarkerFilter(), ['noise\n', `more ${a}`, `${b}out`, 'put\n'])).toBe('output\n');
  });

  it('passes a second marker through: only the first belongs to the transport', () => {
    expect(through(new StartMarkerFilter(), [`${START_MARKER}a${START_MARKER}b`])).toBe(`a${START_MARKER}b`);
  });

  it('gives back what it held when the stream ends without a marker, so a login failure is seen', () => {
    expect(through(new StartMarkerFilter(), ['sh: not found\n'])).toBe('sh: not found\n');
  });

  it('keeps only the tail of a long run of output before a marker that never comes', () => {
    const filter = new StartMarkerFilter();
    for (let i = 0; i < 200; i++) filter.push(Buffer.alloc(1024, i % 2 ? 'a' : 'b'));
    expect(filter.end().length).toBe(64 * 1024);
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
