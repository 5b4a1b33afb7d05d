// The file tools see what a command sees: a real run in manual mode whose task directory is a home holding keys and
// tether's own home (under another name) tries every file tool on them (as they are, through links, by absolute
// path, through execute_code's helpers, by searching), and to change them: no form of a secret reaches the model,
// nothing hidden changes, the run completes, and its checkpoints hold none of it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flatten } from '../src/checkpoints/catalog.js';
import { CheckpointStore } from '../src/checkpoints/store.js';
import { parseConfig } from '../src/config/config.js';
import { harness, type Harness } from './support/agent-harness.js';
import { call, runDenying } from './support/deny-all.js';

const secret = (): string =>
  randomBytes(24)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 24);

const FILES: Record<string, string> = {
  '.ssh/id_rsa': `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret()}\n-----END OPENSSH PRIVATE KEY-----\n`,
  '.aws/credentials': `[default]\naws_secret_access_key = ${secret()}\n`,
  '.config/gh/hosts.yml': `github.com:\n  oauth_token: gho_${secret()}\n`,
  // tether's own home, under a name the credential list does not know: hidden because TETHER_HOME points there.
  '.state/config.yaml': `# the gateway's signing secret: ${secret()}\napprovals:\n  timeout: 600\n`,
};
const values = Object.values(FILES).map((v) => /[A-Za-z0-9]{20,}/.exec(v)![0]);

/** Every form a transformed leak could take: as is, reversed, upper/lower case, base64 at each alignment, pieces. */
function forms(value: string): string[] {
  const out = [value, [...value].reverse().join(''), value.toUpperCase(), value.toLowerCase()];
  for (const pad of ['', 'x', 'xx'])
    out.push(
      Buffer.from(pad + value)
        .toString('base64')
        .slice(4, -4),
    );
  for (let i = 0; i + 8 <= value.length; i += 4) out.push(value.slice(i, i + 8));
  return out;
}

let h: Harness;
let home: string;
beforeAll(async () => {
  // Not under /tmp: the sandbox's /tmp is its own. The home is the worker's, and the task's directory.
  home = realpathSync(mkdtempSync(join('/var/tmp', 'tether-view-home-')));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  mkdirSync(join(home, 'src'));
  writeFileSync(join(home, 'src/app.py'), 'print("hello")\n');
  symlinkSync('.ssh/id_rsa', join(home, 'key-link'));
  symlinkSync('.ssh', join(home, 'ssh-link'));
  symlinkSync(join(home, '.state'), join(home, 'state-link'));
  Object.assign(process.env, { HOME: home, TETHER_HOME: join(home, '.state') });
  h = await harness(parseConfig({ terminal: { backend: 'local', local: { sandbox: { enabled: true } } } }));
});
afterAll(async () => {
  await h.close();
});

it('no file tool reads, finds or changes what the sandbox hides, and checkpoints leave it out', async () => {
  const steps = [
    call('read_file', { path: '.ssh/id_rsa' }),
    call('read_file', { path: '.state/config.yaml' }),
    call('read_file', { path: 'key-link' }),
    call('read_file', { path: 'ssh-link/id_rsa' }),
    call('read_file', { path: 'state-link/config.yaml' }),
    call('read_file', { path: join(home, '.aws/credentials') }),
    call('read_file', { path: 'src/../.config/gh/hosts.yml' }),
    call('read_file', { path: '.ssh/no-such-key' }),
    call('search_files', { pattern: 'aws_secret|oauth_token|PRIVATE KEY|signing secret' }),
    call('search_files', { pattern: 'secret', path: '.state' }),
    call('search_files', { pattern: '*', target: 'files', limit: 1000 }),
    call('patch', { path: '.aws/credentials', old_string: 'aws_secret_access_key', new_string: 'x' }),
    call('write_file', { path: '.state/config.yaml', content: "command_allowlist: ['*']\n" }),
    call('write_file', { path: 'state-link/config.yaml', content: "command_allowlist: ['*']\n" }),
    call('write_file', { path: '.ssh/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }),
    call('write_file', { path: 'ssh-link/new/deeper', content: 'x' }),
    call('write_file', { path: '.aws/new-dir/creds', content: 'x' }),
    call('execute_code', {
      language: 'python',
      code: [
        'for p in [".ssh/id_rsa", ".state/config.yaml", "key-link", ".aws/credentials"]:',
        '    r = read_file(path=p)',
        '    print(str(r)[::-1])',
        'print(search_files(pattern="oauth_token|aws_secret"))',
      ].join('\n'),
    }),
    call('read_file', { path: 'src/app.py' }),
    call('write_file', { path: 'src/util.py', content: 'X = 1\n' }),
  ];
  const { model, out, result, workflowId } = await runDenying(h, home, steps, { idPrefix: 'file-view' });
  expect(result.status).toBe('completed');
  const seen = JSON.stringify(model.requests);
  for (const v of values) for (const f of forms(v)) expect(seen).not.toContain(f);
  // Nothing hidden changed, and nothing was made in a hidden directory.
  for (const [path, text] of Object.entries(FILES)) expect(readFileSync(join(home, path), 'utf8')).toBe(text);
  for (const p of ['.ssh/authorized_keys', '.ssh/new', '.aws/new-dir']) expect(existsSync(join(home, p))).toBe(false);
  // Ordinary work goes on.
  expect(out[18]).toMatchObject({ content: expect.stringContaining('print("hello")') });
  expect(readFileSync(join(home, 'src/util.py'), 'utf8')).toBe('X = 1\n');
  // Each refusal says what it is.
  expect(out[0]).toEqual({ error: expect.stringMatching(/^\.ssh\/id_rsa is hidden: it holds credentials/) });
  expect(out[1]).toEqual({ error: expect.stringMatching(/^\.state\/config\.yaml is hidden: it is tether's own/) });
  expect(out[7]).toEqual({ error: expect.stringMatching(/is hidden/) });
  const listed = out[10] as { files: string[] };
  expect(listed.files).toContain('src/app.py');
  expect(listed.files.filter((f) => /^(\.ssh|\.aws\/credentials|\.config\/gh|\.state)/.test(f))).toEqual([]);
  // The run's checkpoints hold the task's files, and nothing hidden (tether's own store included).
  const store = new CheckpointStore(join(home, '.state'));
  const taken = store.list(workflowId);
  expect(taken.length).toBeGreaterThan(0);
  const paths = [...flatten(store.objects, taken.at(-1)!).keys()];
  expect(paths).toContain('src/app.py');
  expect(paths.filter((p) => /^(\.ssh|\.aws\/credentials|\.config\/gh|\.state)(\/|$)/.test(p))).toEqual([]);
});
