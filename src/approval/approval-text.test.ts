// renderApprovalText is what every channel shows a person before approving.
import { describe, expect, it } from 'vitest';
import { renderApprovalText, thousands } from './approval-text.js';

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
