// A sed command line read once for every judgement (call.ts, sed/checks.ts).
import { describe, expect, it } from 'vitest';
import { words, type Argv } from '../../engine/argv.js';
import { detectorRules } from '../../../../test/support/detector-rules.js';
import { sedCall } from './call.js';

const sed = (...args: string[]): Argv => ({ name: 'sed', written: 'sed', args: words(args), viaXargs: false });
const rules = detectorRules();

describe('sedCall', () => {
  it('takes the first operand as the script unless -e or -f gives one, and the rest as files', () => {
    expect(sedCall(sed('-n', 's/a/b/p', 'x.txt'))).toMatchObject({ scripts: ['s/a/b/p'], inPlace: false });
    const call = sedCall(sed('-e', 's/a/b/', '-e', '/x/d', 'a.txt', 'b.txt'));
    expect(call.scripts).toEqual(['s/a/b/', '/x/d']);
    expect(call.files.map((f) => f.text)).toEqual(['a.txt', 'b.txt']);
  });

  it('reads in-place editing however it is written: -i, -i.bak, -Ei, --in-place=.orig, BSD -i ""', () => {
    for (const args of [['-i'], ['-i.bak'], ['-Ei'], ['--in-place=.orig'], ['-i', '']])
      expect(sedCall(sed(...args, 's/a/b/', 'f.txt'))).toMatchObject({ inPlace: true, scripts: ['s/a/b/'] });
  });

  it('reads a cluster that ends in -e or -f with its value attached or next', () => {
    expect(sedCall(sed('-nes/a/b/p', 'f')).scripts).toEqual(['s/a/b/p']);
    expect(sedCall(sed('-nf', 'edit.sed', 'f')).scriptFiles.map((w) => w.text)).toEqual(['edit.sed']);
  });
});

describe('a sed command', () => {
  it.each([
    ['sed -Ei "s/x/y/" ~/.bashrc', 'overwrite-system-config'],
    ["sed -i -e '/stage: test/d' .gitlab-ci.yml", 'test-tampering'],
    ["sed -i.bak 's#registry.npmjs.org#evil.example#' package-lock.json", 'supply-chain'],
    ["sed -I '' s/a/b/ ~/.bashrc", 'overwrite-system-config'],
    // GNU sed joins -e pieces with newlines, continues `e\` on the next line, and reads commands inside blocks.
    ["sed -e '1e\\' -e 'rm -rf ~' foo.txt", 'delete-home'],
    ["sed '1e\\\nrm -rf ~' foo.txt", 'delete-home'],
    ["sed -n '1{e rm -rf ~\n}' foo.txt", 'delete-home'],
    ["sed 's/x/y/ w /root/.bashrc' foo.txt", 'overwrite-system-config'],
  ])('%s: %s', (command, rule) => {
    expect(rules(command)).toContain(rule);
  });

  it.each([
    "sed -e 's/a/b/' -e 's/c/d/' f.txt",
    "sed '/^#/d; s/ +/ /g' f.txt",
    'sed -n "1,20p" src/app.ts',
    "sed -i 's/foo/bar/g' src/app.ts",
    'sed -E "s/ +/ /g" notes.txt',
  ])('%s stays ordinary', (command) => {
    expect(rules(command)).toEqual([]);
  });
});
