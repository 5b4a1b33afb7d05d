import { describe, expect, it } from 'vitest';
import { judgeSubject, type ReadScripts } from '../../approval/assess.js';
import type { ScriptFile } from './scripts.js';

/** The task directory the gate reads from, as files in memory. */
const disk: Record<string, string> = {
  'ok.sh': 'echo ok\n',
  'ok.py': 'print(1)\n',
  'payload.txt': 'rm -rf ~\n',
  '.git/config': '[core]\n\tbare = false\n',
  'tools/run.sh': 'echo run\n',
};
const read: ReadScripts = (keys) =>
  Promise.resolve(
    new Map(
      keys.map((k): [string, ScriptFile] => {
        const rel = k.replace(/^\/task\//, '').replace(/^\.\//, '');
        if (rel === '.git' || rel === 'tools') return [k, { directory: true }];
        return [k, rel in disk ? { text: disk[rel]! } : { missing: true }];
      }),
    ),
  );
const rulesOf = async (command: string): Promise<string[]> =>
  (await judgeSubject({ text: command }, '/task', read)).verdict.findings.map((f) => f.rule);

describe('a file the verdict read, rewritten by the same line first', () => {
  it.each([
    'cp payload.txt ok.sh; sh ok.sh',
    'mv payload.txt ok.sh && bash ok.sh',
    "sed -i 's/^echo ok$/rm -rf ~/' ok.sh; sh ok.sh",
    "perl -pi -e 's/ok/x/' ok.sh && sh ok.sh",
    'cp payload.txt ok.py && python3 ok.py',
    'cp evil.cfg .git/config; git status',
    'base64 -d <<<cm0gLXJmIH4K > ok.sh; sh ok.sh',
    'cat payload.txt >> ok.sh; sh ok.sh',
    'dd if=payload.txt of=ok.sh 2>/dev/null; sh ok.sh',
    'tee ok.sh < payload.txt >/dev/null; sh ok.sh',
    'install -m 755 payload.txt ok.sh && ./ok.sh',
    'ln -sf payload.txt ok.sh && sh ok.sh',
    'tar xf drop.tar && sh ok.sh',
    'unzip -o drop.zip -d tools && sh tools/run.sh',
    'cp -r drop/. tools/ && sh tools/run.sh',
    'rsync -a drop/ tools/ && sh tools/run.sh',
    'git checkout other -- ok.sh && sh ok.sh',
    'sort -o ok.sh payload.txt && sh ok.sh',
    // Written by inline interpreter code, a nested command, a computed or glob target, or after a cd.
    `python3 -c "import shutil; shutil.copy('payload.txt','ok.sh')"; sh ok.sh`,
    `node -e "require('fs').copyFileSync('payload.txt','ok.sh')"; sh ok.sh`,
    `perl -e 'use File::Copy; copy("payload.txt","ok.sh")'; sh ok.sh`,
    `ruby -e 'File.write("ok.sh", File.read("payload.txt"))'; sh ok.sh`,
    `awk '{print > "ok.sh"}' payload.txt; sh ok.sh`,
    'find . -name payload.txt -exec cp {} ok.sh \\; ; sh ok.sh',
    'cp payload.txt o*.sh; sh ok.sh',
    'F=ok.sh; cp payload.txt $F; sh ok.sh',
    'cd tools && cp ../payload.txt ../ok.sh; cd ..; sh ok.sh',
    'cd tools; cp ../payload.txt run.sh; cd ..; sh tools/run.sh',
    'uniq payload.txt ok.sh; sh ok.sh',
    "script -qc 'cp payload.txt ok.sh' /dev/null; sh ok.sh",
    "bash -c 'cat payload.txt > ok.sh'; sh ok.sh",
    'cp payload.txt "$(echo ok.sh)"; sh ok.sh',
    'git apply x.patch; sh ok.sh',
    "sqlite3 db '.output ok.sh'; sh ok.sh",
    'env -C tools cp ../payload.txt ../ok.sh; sh ok.sh',
    'git -C . checkout other -- ok.sh; sh ok.sh',
    "python3 - <<'EOF'\nimport shutil; shutil.copy('payload.txt', 'ok.sh')\nEOF\nsh ok.sh",
    "sh <<'EOF'\ncp payload.txt ok.sh\nEOF\nsh ok.sh",
    `python3 <<< "import shutil; shutil.copy('payload.txt','ok.sh')"; sh ok.sh`,
    "echo 'cp payload.txt ok.sh' | sh; sh ok.sh",
    "eval 'cp payload.txt ok.sh'; sh ok.sh",
  ])('asks: %s', async (command) => {
    expect(await rulesOf(command)).toContain('changed-before-run');
  });

  it.each([
    'sh ok.sh',
    'chmod +x ok.sh && ./ok.sh',
    'cp ok.sh backup.sh && sh ok.sh',
    'cat ok.sh && sh ok.sh',
    'sh ok.sh > log.txt 2>&1',
    'python3 ok.py > out.txt',
    'mkdir -p out && cp ok.sh out/ && sh ok.sh',
    'sort ok.sh && sh ok.sh',
    'git diff ok.sh && sh ok.sh',
    "sed 's/ok/x/' ok.sh && sh ok.sh",
    'python3 -c "print(1)"; sh ok.sh',
    "awk '{print}' ok.sh; sh ok.sh",
    'uniq ok.sh; sh ok.sh',
    'cd tools && ls; cd ..; sh ok.sh',
    'OUT=build; cp payload.txt "$OUT"; sh ok.sh',
    'find . -name "*.sh" -exec cp {} backup/ \\; ; sh ok.sh',
    'git apply x.patch',
    'git -C tools status; sh ok.sh',
    "sh <<'EOF'\necho hi\nEOF\nsh ok.sh",
    "python3 - <<'EOF'\nprint(open('ok.sh').read())\nEOF\nsh ok.sh",
    "echo 'ls -la' | sh; sh ok.sh",
    "eval 'echo ok.sh'; sh ok.sh",
    'git status',
  ])('does not ask: %s', async (command) => {
    expect(await rulesOf(command)).toEqual([]);
  });
});
