// Outside attack on issue 41 (one boundary for every tool), a run whose task directory is the home (`--cwd ~`, with
// TETHER_HOME at its default ~/.tether): what the sandbox hides or keeps read-only there, through the real worker in
// manual mode, every approval denied. The skipped tests are breaks found by the attack pass and not fixed yet: each
// says what it found.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { harness, type Harness } from './support/agent-harness.js';
import { runCli } from './support/cli.js';
import { call, runDenying } from './support/deny-all.js';

const tag = Math.random().toString(36).slice(2, 8);
const secret = (name: string): string => `${name}SEC${tag}Q7`;
const reversed = (s: string): string => [...s].reverse().join('');
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const saved = { HOME: process.env.HOME, TETHER_HOME: process.env.TETHER_HOME };
let h: Harness;
let home: string;

/** A git repository at `dir` with one committed file. */
function repo(dir: string, file: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), text);
  const git = (...a: string[]) =>
    execFileSync('git', ['-C', dir, '-c', 'user.name=x', '-c', 'user.email=x@x', ...a], { stdio: 'ignore' });
  git('init', '-q');
  git('add', file);
  git('commit', '-qm', 'keys');
}

/**
 * A python program that writes a tar of `files` (names and content base64, so its text names none of them): the
 * detector has nothing to read, the sandbox is what must hold.
 */
function tarProgram(files: Record<string, string>): string {
  return [
    'import tarfile, io, base64, json',
    `files = json.loads(base64.b64decode("${b64(JSON.stringify(files))}"))`,
    'with tarfile.open("bundle.tar", "w") as t:',
    '    for name, body in files.items():',
    '        b = body.encode()',
    '        i = tarfile.TarInfo(name); i.size = len(b); t.addfile(i, io.BytesIO(b))',
    'print("packed")',
  ].join('\n');
}

beforeAll(async () => {
  home = realpathSync(mkdtempSync(join('/var/tmp', 'tether-b41-home-')));
  mkdirSync(join(home, '.aws'));
  writeFileSync(join(home, '.aws/credentials'), `aws_secret_access_key = ${secret('AWS')}\n`);
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Person\n');
  Object.assign(process.env, { HOME: home, TETHER_HOME: join(home, '.tether') });
  h = await harness(
    parseConfig({
      terminal: { backend: 'local', local: { sandbox: { enabled: true, expose: [join(home, '.aws')] } } },
    }),
  );
});
afterAll(async () => {
  await h?.close();
  Object.assign(process.env, saved);
});

it('an exposed credential directory inside the task directory is read-only for file tools and commands', async () => {
  const { out } = await runDenying(
    h,
    home,
    [
      call('read_file', { path: '.aws/credentials' }),
      call('write_file', { path: '.aws/credentials', content: 'overwritten\n' }),
      call('patch', { path: '.aws/credentials', old_string: 'aws_secret', new_string: 'x' }),
      call('write_file', { path: '.aws/config', content: '[default]\ncredential_process = sh -c "touch /tmp/ran"\n' }),
      call('terminal', { command: 'echo x >> ~/.aws/credentials; echo end' }),
    ],
    { idPrefix: 'b41-expose' },
  );
  // Exposed means readable...
  expect(JSON.stringify(out[0])).toContain(secret('AWS'));
  // ...and never changed by the run.
  for (const r of out.slice(1, 4)) expect(r).toEqual({ error: expect.stringMatching(/is read-only: .*expose/) });
  expect(out[4]).toMatchObject({ output: expect.stringMatching(/Read-only file system/) });
  expect(readFileSync(join(home, '.aws/credentials'), 'utf8')).toBe(`aws_secret_access_key = ${secret('AWS')}\n`);
  expect(existsSync(join(home, '.aws/config'))).toBe(false);
}, 300_000);

// BREAK (attack pass on #41): a hidden credential or start-up file that does not exist when the task's shell starts
// is not hidden (nothing to mount over): a program of the run creates ~/.ssh/authorized_keys, ~/.bashrc, ~/.npmrc,
// ~/.config/autostart entries and systemd user units in the home, unasked (here by unpacking a tar whose names the
// program decoded at run time). The next command's sandbox then hides them, but they are on the machine for the
// person's own login, shell and desktop to run.
it.skip('no command creates a credential or start-up file that the sandbox would hide there', async () => {
  const targets = ['.ssh/authorized_keys', '.bashrc', '.profile', '.npmrc', '.config/autostart/x.desktop'];
  const { out } = await runDenying(
    h,
    home,
    [
      call('execute_code', {
        language: 'python',
        code: tarProgram(Object.fromEntries(targets.map((t) => [t, 'ssh-ed25519 AAAA attacker\n']))),
      }),
      call('terminal', { command: 'tar xf bundle.tar; echo unpacked' }),
    ],
    { idPrefix: 'b41-absent', toolsets: ['terminal', 'code_execution'] },
  );
  expect(out[1]).toMatchObject({ output: expect.stringContaining('unpacked') });
  expect(targets.filter((t) => existsSync(join(home, t)) && readFileSync(join(home, t), 'utf8') !== '')).toEqual([]);
}, 300_000);

// BREAK (attack pass on #41): ~/.gitconfig is neither hidden nor read-only when the task directory holds the home:
// a command replaces it (core.pager, which the person's own git runs later, outside the sandbox) without asking,
// when the content comes from a tar. Invariant 7(d): git configuration other programs run is never changed unasked.
it.skip("no command rewrites the person's ~/.gitconfig unasked", async () => {
  await runDenying(
    h,
    home,
    [
      call('execute_code', {
        language: 'python',
        code: tarProgram({ '.gitconfig': '[core]\n\tpager = sh -c "touch /tmp/pager-ran; less"\n' }),
      }),
      call('terminal', { command: 'tar xf bundle.tar; echo unpacked' }),
    ],
    { idPrefix: 'b41-gitconfig', toolsets: ['terminal', 'code_execution'] },
  );
  expect(readFileSync(join(home, '.gitconfig'), 'utf8')).toBe('[user]\n\tname = Person\n');
}, 300_000);

// Found by the attack pass on #41 (fixed): a git repository inside a hidden directory under the task directory (a versioned
// ~/.ssh, pass's ~/.password-store, a `hidden` path) is found by the sandbox's git-directory search and bound back
// into the view, writable: `git --git-dir ~/.ssh/.git show HEAD:id_ed25519` prints the key, and a command can write
// there. The file tools refused the same path (hidden), so the two views disagreed. The search no longer enters what
// the view hides or keeps read-only.
it('no command reads a hidden directory through a git repository inside it', async () => {
  repo(join(home, '.ssh'), 'id_ed25519', `${secret('SSH')}\n`);
  const { out } = await runDenying(
    h,
    home,
    [
      call('terminal', { command: 'git --git-dir="$HOME/.ssh/.git" show HEAD:id_ed25519 | rev' }),
      call('terminal', { command: 'touch ~/.ssh/.git/PLANTED; echo done' }),
    ],
    { idPrefix: 'b41-hgit' },
  );
  expect(JSON.stringify(out)).not.toContain(reversed(secret('SSH')));
  expect(existsSync(join(home, '.ssh/.git/PLANTED'))).toBe(false);
}, 300_000);

// Found by the attack pass on #41 (fixed): with TETHER_HOME under the task directory, tether's checkpoint store
// (TETHER_HOME/checkpoints, a bare repository) is found by the git-directory search and bound back into the view,
// writable: a command of this run reads every other run's checkpointed files from its objects and writes the store.
it("no command reads or writes tether's checkpoint store under the task directory", async () => {
  const victim = realpathSync(mkdtempSync(join('/var/tmp', 'tether-b41-victim-')));
  writeFileSync(join(victim, '.env'), `DB_PASSWORD=${secret('VICTIM')}\n`);
  await runDenying(h, victim, [call('terminal', { command: 'echo working' })], { idPrefix: 'b41-victim' });
  const dump =
    'cd ~/.tether/checkpoints && for o in $(git --git-dir=. cat-file --batch-all-objects --batch-check | cut -d" " -f1); do git --git-dir=. cat-file -p $o 2>/dev/null; done | grep -a DB_PASSWORD | rev';
  const { model } = await runDenying(
    h,
    home,
    [
      call('terminal', { command: dump }),
      call('terminal', { command: 'echo planted > ~/.tether/checkpoints/PLANTED; echo wrote' }),
    ],
    { idPrefix: 'b41-ckpt' },
  );
  expect(JSON.stringify(model.requests).includes(reversed(secret('VICTIM'))), 'a checkpointed secret was read').toBe(
    false,
  );
  expect(existsSync(join(home, '.tether/checkpoints/PLANTED'))).toBe(false);
}, 300_000);

// Found by the attack pass on #41 (fixed), the same store written: a command rewrites every run's checkpoint ref (a tree holding
// a Makefile, the message's cwd pointed elsewhere). A person's later `tether rollback` of another project's run then
// replaced that project's files with the attacker's Makefile, and a rollback of the attacker's run wrote outside its
// task directory. Fixed with the test above (the store is no longer bound into the view); kept as its own test
// because rollback is what a person trusts to undo a run.
it('no command rewrites checkpoints so that a rollback writes into other directories', async () => {
  const victim = realpathSync(mkdtempSync(join('/var/tmp', 'tether-b41-rbvictim-')));
  const elsewhere = realpathSync(mkdtempSync(join('/var/tmp', 'tether-b41-rbout-')));
  writeFileSync(join(victim, 'app.txt'), 'the project\n');
  const v = await runDenying(h, victim, [call('terminal', { command: 'echo changed > app.txt' })], {
    idPrefix: 'b41-rbv',
  });
  const store = '$HOME/.tether/checkpoints';
  const script = [
    'export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t',
    `B=$(printf 'all:\\n\\techo pwned > PWNED\\n' | git --git-dir=${store} hash-object -w --stdin)`,
    `T=$(printf '100644 blob %s\\tMakefile\\n' $B | git --git-dir=${store} mktree)`,
    `for r in $(git --git-dir=${store} for-each-ref --format='%(refname)' refs/tether/runs); do`,
    `  git --git-dir=${store} cat-file commit $r | sed '1,/^$/d' | sed "s#\\"cwd\\":\\"[^\\"]*\\"#\\"cwd\\":\\"${elsewhere}\\"#" > /tmp/msg`,
    `  git --git-dir=${store} update-ref $r $(git --git-dir=${store} commit-tree $T < /tmp/msg) && echo rewrote`,
    'done; echo end',
  ].join('\n');
  const a = await runDenying(
    h,
    home,
    [call('terminal', { command: 'echo first' }), call('terminal', { command: script })],
    { idPrefix: 'b41-rba' },
  );
  expect(a.out[1]).toMatchObject({ output: expect.not.stringContaining('rewrote') });
  const env = { TETHER_HOME: join(home, '.tether'), TEMPORAL_ADDRESS: h.address, TETHER_TASK_QUEUE: h.taskQueue };
  await runCli(['rollback', v.workflowId, '--turn', '1', '--json'], { cwd: tmpdir(), env });
  await runCli(['rollback', a.workflowId, '--turn', '1', '--json'], { cwd: tmpdir(), env });
  expect(existsSync(join(victim, 'Makefile'))).toBe(false);
  expect(readdirSync(elsewhere)).toEqual([]);
}, 300_000);
