// renderApprovalText is what every channel shows a person before approving.
import { describe, expect, it } from 'vitest';
import { cutOutsideSecrets, derivedRenderer, renderApprovalText, splitShown, thousands } from './approval-text.js';

describe('renderApprovalText', () => {
  it('shows an ordinary command exactly', () => {
    expect(renderApprovalText('rm -rf /srv/old && echo done')).toEqual({
      text: 'rm -rf /srv/old && echo done',
      hidden: false,
      redacted: false,
      collapsed: false,
    });
  });

  it('collapses a long run of spaces visibly, so the tail after it is on screen', () => {
    const r = renderApprovalText(`echo hi${' '.repeat(4100)}; rm -rf ~/work`);
    expect(r.text).toBe('echo hi⟨4,100 spaces⟩; rm -rf ~/work');
    expect(r.collapsed).toBe(true);
    expect(renderApprovalText(`a${'\t'.repeat(40)}b`).text).toBe('a⟨40 tabs⟩b');
    expect(renderApprovalText(`a${' \t'.repeat(20)}b`).text).toBe('a⟨40 spaces and tabs⟩b');
    // Indentation of a script stays as it is.
    expect(renderApprovalText(`if x; then\n${' '.repeat(16)}y\nfi`).text).toBe(`if x; then\n${' '.repeat(16)}y\nfi`);
  });

  it('collapses blank lines into one counted line, keeping two', () => {
    expect(renderApprovalText(`true${'\n'.repeat(201)}rm -rf x`).text).toBe('true\n⟨200 blank lines⟩\nrm -rf x');
    expect(renderApprovalText('a\n\n\nb').text).toBe('a\n\n\nb');
    expect(renderApprovalText(`a\n  \n\t\n \n\nb`, { newlines: 'escape' }).text).toBe('a\\n⟨4 blank lines⟩\\nb');
  });

  it('redacts only the secret token, never the shell code after it, and marks the span', () => {
    const r = renderApprovalText('ls; DEPLOY_TOKEN=abcdef;date>>f', { redact: true });
    expect(r.text).toBe('ls; DEPLOY_TOKEN=⟨redacted: 6 characters⟩;date>>f');
    expect(r.redacted).toBe(true);
    for (const tail of ['|sh', '$(id)', '`id`', '>x', '&&rm -rf ~', "'x'", '"x"', ' x', '\\n', '(x)', '<x'])
      expect(renderApprovalText(`API_KEY=abcdefgh${tail}`, { redact: true }).text).toBe(
        `API_KEY=⟨redacted: 8 characters⟩${renderApprovalText(tail).text}`,
      );
    expect(renderApprovalText('curl -H "x: ghp_0123456789abcdef0123456789abcdef01" u', { redact: true }).text).toBe(
      'curl -H "x: ⟨redacted: 38 characters⟩" u',
    );
    // Without redaction (the person's own terminal, the exact view) the value is shown.
    expect(renderApprovalText('DEPLOY_TOKEN=abcdef;date').text).toBe('DEPLOY_TOKEN=abcdef;date');
  });

  it('escapes marker brackets in the text, so nothing in a command can pass for a marker', () => {
    const r = renderApprovalText('echo ⟨4 spaces⟩ ⟨redacted: 6 characters⟩');
    expect(r.text).toBe('echo \\u27e84 spaces\\u27e9 \\u27e8redacted: 6 characters\\u27e9');
    expect(r.hidden).toBe(true);
  });

  it('formats counts without a locale', () => {
    expect([thousands(5), thousands(4100), thousands(1234567)]).toEqual(['5', '4,100', '1,234,567']);
  });
});

describe('splitShown: the command apart from the files the gate read', () => {
  const command = 'git push --force origin main';
  const config = '[core]\n\tbare = false\n';
  const whole = `${command}\n# .git/config:\n${config}`;
  const layout = { at: command.length, files: [{ path: '.git/config', chars: config.length }] };

  it('splits exactly where the layout says', () => {
    expect(splitShown(whole, layout)).toEqual({ asked: command, files: [{ path: '.git/config', content: config }] });
  });

  it('moves nothing out of the command on a layout that does not fit (a command may hold "# path:" lines itself)', () => {
    const tricky = `echo hi\n# notes.txt:\nrm -rf ~/work`;
    expect(splitShown(tricky, undefined)).toEqual({ asked: tricky, files: [] });
    for (const bad of [
      { at: 7, files: [{ path: 'notes.txt', chars: 5 }] },
      { at: 7, files: [{ path: 'other.txt', chars: 12 }] },
      { at: -1, files: [] },
      { at: 999, files: [] },
      { at: command.length, files: [{ path: '.git/config', chars: config.length + 1 }] },
    ])
      expect(splitShown(bad.at === 7 ? tricky : whole, bad)).toEqual({
        asked: bad.at === 7 ? tricky : whole,
        files: [],
      });
  });
});

describe('what counts as deceptive, and file whitespace', () => {
  it('a tab is shown but never warned about; a carriage return or bidi override is', () => {
    expect(renderApprovalText('a\tb')).toMatchObject({ text: 'a\\tb', hidden: false });
    expect(renderApprovalText('a\rb').hidden).toBe(true);
    expect(renderApprovalText('a\u202eb').hidden).toBe(true);
  });

  it("a file's tabs and line ends are shown as they are, its other hidden characters escaped", () => {
    const file = renderApprovalText('[core]\r\n\tbare = false\n', { whitespace: 'file' });
    expect(file).toEqual({ text: '[core]\n\tbare = false\n', hidden: false, redacted: false, collapsed: false });
    expect(renderApprovalText('x = \u202eevil\n', { whitespace: 'file' })).toMatchObject({
      text: 'x = \\u202eevil\n',
      hidden: true,
    });
  });
});

describe('texts derived from a command', () => {
  it("hide the command's secret values wherever they appear, even expanded in a finding", () => {
    const derived = derivedRenderer('API_TOKEN=s3cr3tvalue99; git push "https://bot:$API_TOKEN@h/r" main', true);
    expect(derived('git push --force to https://bot:s3cr3tvalue99@h/r').text).toBe(
      'git push --force to https://bot:⟨redacted: 13 characters⟩@h/r',
    );
    // Unshared views show it, as they show the command.
    expect(derivedRenderer('API_TOKEN=s3cr3tvalue99', false)('x s3cr3tvalue99').text).toBe('x s3cr3tvalue99');
  });

  it('a title is never cut inside a secret value', () => {
    const text = `API_TOKEN=${'a'.repeat(40)}; git push`;
    expect(cutOutsideSecrets(text, 20)).toBe('API_TOKEN=…');
    expect(cutOutsideSecrets('short', 20)).toBe('short');
  });
});
