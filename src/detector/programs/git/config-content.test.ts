// What a write makes git run later whatever the file is named (git configuration with a command, commondir/gitdir, a
// HEAD completing a git directory around a config) and git init/clone copying a template in: each asks with one
// reason; ordinary INI/TOML files, harmless git settings and the system template do not.
import { beforeAll, describe, expect, it } from 'vitest';
import { judgedOnDisk } from '../../../../test/support/judge-on-disk.js';
import { loadBashParser } from '../../engine/parser.js';
import { fileWriteSubject, type CallSubject } from '../../engine/subject.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

/** The gate's findings for `subject`, with task files from `disk` (a key ending in `/` is a directory). */
const judged = async (subject: string | CallSubject, disk: Record<string, string> = {}) =>
  (await judgedOnDisk(subject, CWD, disk)).findings;
const write = (path: string, content: string): CallSubject => fileWriteSubject('write_file', path, content)!;
const patch = (path: string, content: string): CallSubject => fileWriteSubject('patch', path, content)!;

const ASKS: [string, string | CallSubject, string, Record<string, string>?][] = [
  ['fsmonitor in a plain directory', write('cz/config', '[core]\n\tfsmonitor = "touch m; false"\n'), 'core.fsmonitor'],
  ['an alias with ! before the repo exists', write('b8/config', '[alias]\n\tst = "!touch m"\n'), 'alias.st'],
  ['a template config', write('tpl2/config', '[core]\n  fsmonitor = x\n'), 'core.fsmonitor'],
  // clone writes its -c settings into the new repository's config (found by the last attack pass).
  ['clone -c fsmonitor', "git clone -q -c core.fsmonitor='touch m; false' . c22", 'core.fsmonitor'],
  ['clone --config= fsmonitor', 'git clone -q --config=core.fsmonitor=x . c', 'core.fsmonitor'],
  [
    'clone -c with the key spelled through a variable',
    'k=monitor; git clone -c "core.fs$k=touch m" . c',
    'core.fsmonitor',
  ],
  ['clone -c an alias with !', "git clone -c alias.st='!touch m' . c", 'alias.st'],
  ['any name', write('notes.txt', '[core]\n\tpager = "sh -c x"\n'), 'core.pager'],
  ['hooksPath', write('x/config', '[core]\nhooksPath = h\n'), 'core.hookspath'],
  ['sshCommand', write('x/config', '[core]\n\tsshCommand = x\n'), 'core.sshcommand'],
  ['a filter driver', write('x/cfg', '[filter "z"]\n\tsmudge = x\n'), 'filter.z.smudge'],
  ['a textconv', write('x/cfg', '[diff "z"]\n\ttextconv = x\n'), 'diff.z.textconv'],
  ['a merge driver', write('x/cfg', '[merge "z"]\n\tdriver = x\n'), 'merge.z.driver'],
  ['a credential helper', write('x/cfg', '[credential]\n\thelper = !x\n'), 'credential.helper'],
  ['gpg.program', write('x/cfg', '[gpg]\n\tprogram = x\n'), 'gpg.program'],
  ['an include', write('x/cfg', '[include]\n\tpath = other\n'), 'include.path'],
  ['an includeIf', write('x/cfg', '[includeIf "gitdir:/"]\n\tpath = o\n'), 'includeif.gitdir:/.path'],
  ['a pager.* entry', write('x/cfg', '[pager]\n\tlog = x\n'), 'pager.log'],
  ['sequence.editor', write('x/cfg', '[sequence]\n\teditor = x\n'), 'sequence.editor'],
  ['uploadpack hook', write('x/cfg', '[uploadpack]\n\tpackObjectsHook = x\n'), 'uploadpack.packobjectshook'],
  ['protocol.ext.allow', write('x/cfg', '[protocol "ext"]\n\tallow = always\n'), 'protocol.ext.allow'],
  ['a patch adding a section', patch('x/config', '[core]\n\teditor = x\n'), 'core.editor'],
  ['a heredoc', "cat > cz/config <<'EOF'\n[core]\n\tfsmonitor = x\nEOF", 'core.fsmonitor'],
  ['printf', "printf '[alias]\\n\\tst = !x\\n' > b/config", 'alias.st'],
  ['echo', `echo '[core] fsmonitor = x' > b/config`, 'core.fsmonitor'],
  ['commondir anywhere', write('tplc/commondir', '../cz'), 'a file git reads commands from'],
  ['gitdir anywhere', 'echo /x > t/gitdir', 'a file git reads commands from'],
  [
    'HEAD beside a config',
    write('b8/HEAD', 'ref: refs/heads/main\n'),
    'a git HEAD beside a config file',
    { 'b8/config': '[core]\n\tbare = true\n' },
  ],
  ['init --template', 'git init -q --template=tplc', 'template directory tplc'],
  ['init --template into a new dir', 'git init -q --template=tpl2 g2', 'template directory tpl2'],
  ['-c init.templateDir', 'git -c init.templateDir=/work/proj/tpl4 init -q g4', 'template directory /work/proj/tpl4'],
  ['clone --template', 'git clone -q --template=tpl11 src11 g11', 'template directory tpl11'],
  ['clone --config init.templateDir', 'git clone --config init.templateDir=t s d', 'template directory t'],
  ['submodule under -c', 'git -c init.templatedir=t submodule update --init', 'template directory t'],
  [
    'init.templateDir in the repository config',
    'git init -q g5',
    'template directory tp',
    {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/objects/': '',
      '.git/refs/': '',
      '.git/config': '[init]\n templateDir = tp\n',
    },
  ],
];

const QUIET: [string, string | CallSubject, Record<string, string>?][] = [
  ['setup.cfg', write('setup.cfg', '[metadata]\nname = x\n[options]\npackages = find:\n[aliases]\ntest = pytest\n')],
  ['tox.ini', write('tox.ini', '[tox]\nenvlist = py3\n[testenv]\ncommands = pytest {posargs}\n')],
  ['.editorconfig', write('.editorconfig', 'root = true\n[*]\nindent_style = space\n')],
  ['pyproject', write('pyproject.toml', '[tool.black]\nline-length = 88\n[tool.pytest.ini_options]\naddopts = "-q"\n')],
  [
    'harmless git settings',
    write('x/config', '[user]\n\tname = A\n[core]\n\tautocrlf = input\n[alias]\n\tst = status\n'),
  ],
  ['a .gitconfig-like text file without sections', write('notes.md', 'core.fsmonitor is a setting\n')],
  ['an empty pager', write('x/cfg', '[core]\n\tpager =\n')],
  ['HEAD with no config beside it', write('b9/HEAD', 'ref: refs/heads/main\n')],
  ['a file named HEAD with other text', write('b8/HEAD', 'notes\n'), { 'b8/config': '[core]\n' }],
  ['a plain git init', 'git init -q g6'],
  ['clone -c of a harmless setting', 'git clone -c user.name=x -c core.autocrlf=false . c'],
  ['the system template', 'git init -q --template=/usr/share/git-core/templates g7'],
  ['an empty template', 'git init -q --template= g8'],
  ['echo of a harmless ini', `printf '[section]\\nkey = value\\n' > settings.ini`],
];

describe('git configuration content, git-only names and templates', () => {
  it('clone -c with a key known only at run time asks', async () => {
    const findings = await judged('git clone -q -c core.fs$(echo monitor)=x . c');
    expect(findings.map((f) => f.rule)).toEqual(['dynamic-command']);
  });
  it.each(ASKS)('%s asks', async (_name, subject, reason, disk) => {
    const findings = await judged(subject, disk);
    expect(findings.map((f) => f.rule)).toEqual(['git-hook']);
    expect(findings[0]!.description).toContain(reason);
  });
  it.each(QUIET)('%s does not ask', async (_name, subject, disk) => {
    expect(await judged(subject, disk)).toEqual([]);
  });
});
