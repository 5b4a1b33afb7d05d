// The canonical form and scope of an approval: two commands share a form only when bash would run the same words.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser, type ParseBash } from '../detector/engine/parser.js';
import { approvalScope, canonicalCommand } from './scope.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});

const scope = (text: string, more: Partial<Parameters<typeof approvalScope>[1]> = {}) =>
  approvalScope(parse, {
    tool: 'terminal',
    subject: { text },
    cwd: '/w',
    findings: [{ rule: 'git-force-push', tier: 'dangerous', description: 'd' }],
    reads: {},
    ...more,
  });

describe('canonicalCommand', () => {
  it('removes quoting that changes nothing', () => {
    const same = [
      'git push --force R feature-x',
      "git push --force 'R' feature-x",
      'git  push --force "R" feature-x',
      'g\\it push --force R "feature-x"',
      'git push --force R fea"ture"-x',
    ];
    for (const c of same) expect(canonicalCommand(parse, c)).toBe(canonicalCommand(parse, same[0]!));
    expect(canonicalCommand(parse, 'a; b')).toBe(canonicalCommand(parse, 'a\nb'));
    expect(canonicalCommand(parse, "git push 'R' x 2>/dev/null; echo w >> out")).toBe(
      canonicalCommand(parse, 'git push R x 2>/dev/null; echo w >>"out"'),
    );
    // A quoted tilde is a literal ~ either way (an unquoted one is the home directory, kept apart above).
    expect(canonicalCommand(parse, 'rm -rf "~/x"')).toBe(canonicalCommand(parse, "rm -rf '~/x'"));
  });

  it('keeps apart what bash runs differently', () => {
    const distinct = [
      'git push --force R feature-x',
      'git push --force R main',
      'git push --mirror R',
      'git push --force --delete R main',
      'git push --force R feature-x main',
      'git push --force R "feature-x main"',
      'git push --force R feature-x &',
      'git push --force R feature-x | cat',
      'git push --force R feature-x && cat',
      'git push --force R feature-x || cat',
      'git push --force R feature-x # main',
      'git push --force R feature-x > out',
      'git push --force R feature-x >> out',
      'git push --force R feature-x 2> out',
      'git push --force R feature-x > out2',
      'git push --force R feature-x >| out',
      'git push --force R feature-x &> out',
      'git push --force R feature-x < out',
      'git push --force R feature-x > "$OUT"',
      'git push --force R feature-x > ~/out',
      'git push --force R feature-x <<< main',
      'X=1 git push --force R feature-x',
      'git push --force R $B',
      'git push --force R "$B"',
      'git push --force R feature-*',
      'git push --force R {feature-x,main}',
      "rm -rf '~/x'",
      'rm -rf ~/x',
      'git push --force R feature-x\n',
      '$(echo git) push --force R feature-x',
    ];
    const forms = distinct.map((c) => canonicalCommand(parse, c));
    // The trailing newline is the same program; everything else differs.
    const newline = distinct.indexOf('git push --force R feature-x\n');
    expect(forms[newline]).toBe(forms[0]);
    const rest = forms.filter((_, i) => i !== newline);
    expect(new Set(rest).size).toBe(rest.length);
  });

  it('keeps the exact text of anything it cannot read as literal words', () => {
    expect(JSON.parse(canonicalCommand(parse, 'C=ls; $C'))).toEqual(['exact', 'C=ls; $C']);
    expect(JSON.parse(canonicalCommand(parse, 'echo "a $HOME"'))).toEqual(['exact', 'echo "a $HOME"']);
    expect(JSON.parse(canonicalCommand(parse, 'if true; then rm x; fi'))).toEqual(['exact', 'if true; then rm x; fi']);
  });
});

describe('approvalScope', () => {
  it('binds the directory, the input and each file read', () => {
    const base = scope('sh x.sh', { reads: { 'x.sh': 'sha256:aa' } });
    expect(scope('sh x.sh', { reads: { 'x.sh': 'sha256:bb' } }).key).not.toBe(base.key);
    expect(scope('sh x.sh', { reads: { 'x.sh': 'sha256:aa' }, cwd: '/v' }).key).not.toBe(base.key);
    expect(scope('sh x.sh', { reads: { 'x.sh': 'sha256:aa' }, tool: 'process' }).key).not.toBe(base.key);
    expect(scope('sh', { subject: { text: 'sh', stdin: 'rm -rf a' } }).key).not.toBe(
      scope('sh', { subject: { text: 'sh', stdin: 'rm -rf b' } }).key,
    );
    expect(base.covers).toBe('this exact command in /w, while x.sh stays exactly as shown');
    expect(base.always).toBeUndefined();
    expect(base.alwaysNot).toMatch(/runs x.sh/);
  });

  it('offers always as this exact command in this directory', () => {
    const s = scope('git push --force R feature-x');
    expect(s.always).toEqual({ command: 'git push --force R feature-x', cwd: '/w' });
    expect(s.onceOnly).toBeUndefined();
    expect(s.covers).toBe('this exact command in /w');
  });

  it('gives only once for what tether could not read', () => {
    for (const rule of ['dynamic-command', 'unread-script', 'carried-code', 'remote-code-exec', 'decoded-to-shell']) {
      const s = scope('C=ls; $C', { findings: [{ rule, tier: 'dangerous', description: 'd' }] });
      expect(s.onceOnly).toContain(`[${rule}]`);
      expect(s.always).toBeUndefined();
    }
  });
});
