import { describe, expect, it } from 'vitest';
import { RootedView, TaskView, type HiddenPath, type Layer } from './task-view.js';
import { DEFAULT_PROTECTED } from '../common/protected-paths.js';

const h = (path: string, why: HiddenPath['why'] = 'credentials'): HiddenPath => ({ path, why });

describe('TaskView: what a task sees at a path', () => {
  const view = new TaskView(
    [h('/home/u/.ssh'), h('/home/u/.aws/credentials'), h('/home/u/.tether', 'tether'), h('/tmp', 'private-tmp')],
    ['/home/u/.ssh/known_hosts'],
    true,
    ['/srv/cache'],
  );
  const cases: [string, string, ReturnType<RootedView['sight']>][] = [
    ['/home/u/proj', '/home/u/proj/src/a.ts', undefined],
    ['/home/u/proj', '/home/u/.ssh/id_rsa', { hidden: h('/home/u/.ssh') }],
    ['/home/u/proj', '/home/u/.ssh', { hidden: h('/home/u/.ssh') }],
    ['/home/u/proj', '/home/u/.ssh/known_hosts', { readOnly: '/home/u/.ssh/known_hosts' }],
    // A task directory that holds the home: what is hidden stays hidden in it.
    ['/home/u', '/home/u/.aws/credentials', { hidden: h('/home/u/.aws/credentials') }],
    ['/home/u', '/home/u/.aws/config', undefined],
    ['/home/u', '/home/u/.tether/config.yaml', { hidden: h('/home/u/.tether', 'tether') }],
    // A task directory inside a hidden one is the task's own.
    ['/home/u/.tether/work/t1', '/home/u/.tether/work/t1/x', undefined],
    ['/home/u/.tether/work/t1', '/home/u/.tether/config.yaml', { hidden: h('/home/u/.tether', 'tether') }],
    ['/home/u/.ssh', '/home/u/.ssh/id_rsa', undefined],
    // The machine's /tmp is not the task's; a task directory under it is.
    ['/home/u/proj', '/tmp/x', { hidden: h('/tmp', 'private-tmp') }],
    ['/tmp/task', '/tmp/task/x', undefined],
    ['/tmp/task', '/tmp/other/x', { hidden: h('/tmp', 'private-tmp') }],
    // Names that only start like a hidden path are not in it.
    ['/home/u/proj', '/home/u/.sshx/id', undefined],
  ];
  it.each(cases)('task %s sees %s as %j', (workdir, path, sight) => {
    expect(view.forTask(workdir).sight(path)).toEqual(sight);
  });

  it('writes go only where a command can write: under the task directory or a writable path, not hidden, not read-only', () => {
    const v = view.forTask('/home/u');
    expect(v.writable('/home/u/notes.txt')).toBe(true);
    expect(v.writable('/srv/cache/x')).toBe(true);
    expect(v.writable('/etc/passwd')).toBe(false);
    expect(v.writable('/home/u/.ssh/authorized_keys')).toBe(false);
    expect(v.writable('/home/u/.ssh/known_hosts')).toBe(false);
  });

  it('a hidden path inside a task directory that lies inside a hidden one is hidden again', () => {
    const v = new TaskView([h('/h/.tether', 'tether'), h('/h/.tether/work/t1/.env', 'configured')]).forTask(
      '/h/.tether/work/t1',
    );
    expect(v.sight('/h/.tether/work/t1/.env')).toEqual({ hidden: h('/h/.tether/work/t1/.env', 'configured') });
    const kinds = (ls: Layer[]): string[] => ls.map((l) => `${l.kind} ${l.path}`);
    // Mounted shallowest first, each only where it changes what is above it.
    expect(kinds(v.mounts())).toEqual(['hide /h/.tether', 'show /h/.tether/work/t1', 'hide /h/.tether/work/t1/.env']);
  });

  it('an exposed path inside the task directory is read-only there, and mounted so (found by the attack pass)', () => {
    // `--cwd ~` with ~/.aws exposed (and so no longer hidden): readable, never writable.
    const v = new TaskView([h('/h/.ssh')], ['/h/.aws', '/h/.ssh/known_hosts', '/elsewhere/.kube'], true).forTask('/h');
    expect(v.sight('/h/.aws/credentials')).toEqual({ readOnly: '/h/.aws' });
    expect(v.writable('/h/.aws/config')).toBe(false);
    expect(v.writable('/h/notes.txt')).toBe(true);
    const kinds = (ls: Layer[]): string[] => ls.map((l) => `${l.kind} ${l.path}`);
    // Outside every root and every hidden path, the read-only system already holds an exposed path: no mount.
    expect(kinds(v.mounts())).toEqual(['hide /h/.ssh', 'show-read-only /h/.aws', 'show-read-only /h/.ssh/known_hosts']);
  });

  it('mounts nothing twice: a hidden path inside a hidden directory is hidden with it', () => {
    const v = new TaskView([h('/h/.config'), h('/h/.config/gh'), h('/h/.netrc')]).forTask('/work');
    expect(v.mounts().map((l) => l.path)).toEqual(['/h/.netrc', '/h/.config']);
  });

  it('narrowed to a directory, it knows whether anything below is hidden', () => {
    expect(view.forTask('/home/u/proj').below('/home/u/proj').clear).toBe(true);
    const home = view.forTask('/home/u').below('/home/u');
    expect(home.clear).toBe(false);
    expect(home.sight('/home/u/.ssh/id_rsa')).toEqual({ hidden: h('/home/u/.ssh') });
  });
});

describe('TaskView: the protected files a file tool asks about', () => {
  const view = new TaskView([], [], true, ['/srv/cache'], DEFAULT_PROTECTED).forTask('/w');
  const repos = new Set(['/w/vendor/lib', '/elsewhere/repo', '/']);
  const cases: [string, string | undefined][] = [
    ['/w/AGENTS.md', 'agent'],
    ['/w/agents.md', 'agent'],
    ['/w/.github/workflows/ci.yml', 'ci'],
    ['/w/.github/workflows', 'ci'],
    ['/w/.github/dependabot.yml', undefined],
    ['/w/src/app.py', undefined],
    // Only at a project's top: a root, or a repository in it, where the deepest one whose entry matches decides.
    ['/w/src/AGENTS.md', undefined],
    ['/w/vendor/lib/.claude/settings.json', 'agent'],
    ['/w/vendor/lib/.github/workflows/ci.yml', 'ci'],
    ['/srv/cache/.envrc', 'direnv'],
    // Outside the roots, only repositories decide; above a root nothing is looked at (/ is a repository here).
    ['/elsewhere/repo/CODEOWNERS', 'owners'],
    ['/elsewhere/plain/CODEOWNERS', undefined],
  ];
  it.each(cases)('%s is protected as %s', (path, kind) => {
    expect(view.protectedAt(path, (d) => repos.has(d))?.kind).toBe(kind);
  });

  it('nothing is protected without entries', () => {
    expect(new TaskView([]).forTask('/w').protectedAt('/w/AGENTS.md', () => true)).toBeUndefined();
  });
});
