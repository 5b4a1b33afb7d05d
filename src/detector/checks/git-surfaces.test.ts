// Writes onto what a git directory runs (config, commondir, config.worktree, hooks, info/attributes, a worktree's or
// submodule's own) in any git directory at any depth, wherever the shell is (a `cd` of the line, or one an earlier
// command left), and git finding a bare repository as git does: each asks; ordinary writes and git commands do not.
import { beforeAll, describe, expect, it } from 'vitest';
import { judgedOnDisk } from '../../../test/support/judge-on-disk.js';
import { loadBashParser } from '../engine/parser.js';
import { fileWriteSubject, type CallSubject } from '../engine/subject.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

/** A git directory's files at `at` (a key ending in `/`, or '' for the directory itself). */
const gitDir = (at: string, config = '[core]\n\tbare = false\n'): Record<string, string> => ({
  [`${at}HEAD`]: 'ref: refs/heads/main\n',
  [`${at}objects/`]: '',
  [`${at}refs/`]: '',
  [`${at}config`]: config,
});
const FSMONITOR = '[core]\n\tfsmonitor = "kill -9 -1; false"\n';
const ALIAS = '[alias]\n\tst = "!kill -9 -1"\n';

/**
 * The gate as the activity runs it, with files from `disk` (task-relative key → text; a key ending in `/` is a
 * directory). `shell`: the directory an earlier command's `cd` left the shell in, where relative keys are read.
 */
const judged = async (subject: string | CallSubject, disk: Record<string, string>, shell = '') =>
  (await judgedOnDisk(subject, CWD, disk, shell)).rules;
const write = (path: string): CallSubject => fileWriteSubject('write_file', path, 'x')!;

const TOP = gitDir('.git/');
const ATTACKS: [string, string | CallSubject, Record<string, string>, string?][] = [
  ['commondir written after a cd in the line', 'cd .git && echo c > commondir', TOP],
  ['commondir written where an earlier cd left the shell', 'echo c > commondir', TOP, '.git'],
  ['a config in a directory of .git', write('.git/c/config'), TOP],
  [
    'a nested repository config by an absolute cd',
    `cd ${CWD}/a/b/.git && cat ../../../cfg.txt > config`,
    gitDir('a/b/.git/'),
  ],
  ['a nested repository config by a relative cd', 'cd a/b/.git && cat ../../../cfg.txt > config', gitDir('a/b/.git/')],
  ['a nested repository config from inside it', 'cat ../../../cfg.txt > config', gitDir('a/b/.git/'), 'a/b/.git'],
  ['a bare repository config (write_file)', write('evil.git/config'), gitDir('evil.git/')],
  [
    'a bare repository config while the shell is elsewhere (write_file)',
    write('evil.git/config'),
    gitDir('evil.git/'),
    'src',
  ],
  ['a bare repository hook', 'cp x.sh evil.git/hooks/post-update', gitDir('evil.git/')],
  ['a bare repository hooks directory', 'cp -r myhooks evil.git/hooks', gitDir('evil.git/')],
  ['a config copied into a bare repository', 'cp config evil.git', gitDir('evil.git/')],
  ['a config written by sort -o in a bare repository', 'sort -o config cfg.txt', gitDir('evil.git/'), 'evil.git'],
  ['a bare repository made and configured in one line', 'git init -q --bare e.git && cp cfg.txt e.git/config', {}],
  ['a linked link for commondir', 'ln -s ../x .git/commondir', TOP],
  ['a worktree config.worktree', 'echo x > .git/worktrees/w/config.worktree', TOP],
  ['a worktree commondir, from the git directory', 'echo .. > worktrees/w/commondir', TOP, '.git'],
  ['a submodule config', 'tee .git/modules/sub/config < cfg.txt', TOP],
  ['attributes in info', "echo '* filter=x' > .git/info/attributes", TOP],
  ['a .git file pointing elsewhere', "echo 'gitdir: ../evil' > sub/.git", {}],
  ['commondir after a cd to a place not known', 'cd "$D" && echo c > commondir', TOP],
  ['a hook by dd', 'dd if=x.sh of=.git/hooks/pre-commit', TOP],
  ['a hook by install -t', 'install -m 755 -t .git/hooks pre-commit', TOP],
];

const GIT_RUNS: [string, string, Record<string, string>, string?][] = [
  ['an alias of a bare repository entered by cd', 'cd evil.git && git st', gitDir('evil.git/', ALIAS)],
  ['an alias of a bare repository the shell is in', 'git st', gitDir('evil.git/', ALIAS), 'evil.git'],
  ['an alias of a bare repository by -C', 'git -C evil.git st', gitDir('evil.git/', ALIAS)],
  [
    'fsmonitor of a planted commondir',
    'git status',
    { ...TOP, '.git/commondir': 'c\n', ...gitDir('.git/c/', FSMONITOR) },
  ],
  ['fsmonitor through GIT_COMMON_DIR', 'GIT_COMMON_DIR=c git status', { ...TOP, ...gitDir('c/', FSMONITOR) }],
  [
    'fsmonitor in config.worktree',
    'git status',
    { ...gitDir('.git/', '[extensions]\n\tworktreeConfig = true\n'), '.git/config.worktree': FSMONITOR },
  ],
];

const BENIGN: [string, string | CallSubject, Record<string, string>, string?][] = [
  ['git init', 'git init', {}],
  ['git commit', 'git commit -m x', TOP],
  ['a note in a subdirectory', 'cd sub && echo x > notes.txt', TOP],
  ['git config of a name', 'git config user.name x', TOP],
  ['a file called config outside any git directory', 'echo x > config', TOP],
  ['a config in a plain directory', write('app/config'), TOP],
  ['a React hook', 'cp tmpl.ts src/hooks/useThing.ts', TOP],
  ['a config file after a cd', 'cd src && echo x > config.json', TOP],
  ['git status in a subdirectory', 'git status', TOP, 'src'],
  ['a bare repository without commands', 'cd plain.git && git log', gitDir('plain.git/')],
];

describe('writes onto a git directory’s executable surfaces', () => {
  it.each(ATTACKS)('asks: %s', async (_name, subject, disk, shell) => {
    expect(await judged(subject, disk, shell)).toContain('git-hook');
  });
});

describe('git found as git finds it (bare repositories, commondir, GIT_COMMON_DIR, config.worktree)', () => {
  it.each(GIT_RUNS)('asks: %s', async (_name, command, disk, shell) => {
    expect(await judged(command, disk, shell)).toContain('kill-all');
  });
});

describe('ordinary writes and git commands', () => {
  it.each(BENIGN)('does not ask: %s', async (_name, subject, disk, shell) => {
    expect(await judged(subject, disk, shell)).toEqual([]);
  });
});
