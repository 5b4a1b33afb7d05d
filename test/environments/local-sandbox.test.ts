// The local backend's bubblewrap sandbox, for real: writes outside the allowed paths fail with the real error,
// nothing outside can be signalled, setsid children die with their command, and the start-up checks (the network:
// local-task-network.test.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import { until } from '../support/cli.js';
import { call as callIn, configure, dir, hostProcesses, type Result } from '../support/local-sandbox.js';

let cwd = dir('tether-sbx-');
let n = 0;
const task = (): string => `sbx-${process.pid}-${++n}`;
const call = (tool: string, taskId: string, args: object): Promise<Result> => callIn(tool, taskId, cwd, args);
const sh = (taskId: string, args: object): Promise<Result> => call('terminal', taskId, args);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(async () => {
  await environmentManager().closeAll();
});

describe('the local sandbox (bubblewrap)', () => {
  it('refuses writes outside the task directory, /tmp and writable with the real error, and says how to allow them', async () => {
    const extra = dir('tether-sbx-writable-');
    // Not under /tmp: the sandbox's /tmp is its own, so a host path there is simply not found.
    const outside = dir('tether-sbx-outside-', '/var/tmp');
    await configure({ sandbox: { writable: [extra] } });
    const t = task();
    const etc = await sh(t, { command: 'echo x > /etc/tether-sandbox-probe' });
    expect(etc.exit_code).not.toBe(0);
    expect(etc.output).toMatch(/\/etc\/tether-sandbox-probe: Read-only file system/);
    expect(etc.sandbox).toMatch(/terminal\.local\.sandbox\.writable/);
    expect(existsSync('/etc/tether-sandbox-probe')).toBe(false);
    const other = await sh(t, { command: `touch ${outside}/nope` });
    expect(other.output).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, 'nope'))).toBe(false);
    // The allowed places: the task's directory, the listed path, and a /tmp private to the task that lasts between commands.
    expect(
      (
        await sh(t, {
          command: `echo a > here.txt && echo b > ${extra}/there.txt && echo c > /tmp/private.txt && echo ok`,
        })
      ).output,
    ).toBe('ok\n');
    expect(readFileSync(join(cwd, 'here.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(extra, 'there.txt'), 'utf8')).toBe('b\n');
    expect(existsSync('/tmp/private.txt')).toBe(false);
    expect((await sh(t, { command: 'cat /tmp/private.txt' })).output).toBe('c\n');
    // Another task has a /tmp of its own.
    expect((await sh(task(), { command: 'cat /tmp/private.txt' })).output).toMatch(/No such file/);
    // The machine's daemons' sockets are not reachable (Docker's would be root on the host).
    expect((await sh(t, { command: 'ls /run /var/run' })).output).not.toMatch(/docker\.sock/);
  });

  it("tether's kill script, started into a command's PID namespace from outside, brings no outside network with it", async () => {
    await configure({ sandbox: 'on' });
    const t = task();
    // The bait ignores TERM (so the kill script lingers); the watcher, in the same PID namespace, notes the network
    // namespace of every new process it sees: a command that took the kill script over (ptrace) would have that.
    const bait = await sh(t, {
      background: true,
      command:
        "trap '' TERM; echo $$ > /tmp/bait.pid; for p in /proc/[0-9]*; do readlink $p/ns/net; done | sort -u > /tmp/known; " +
        'while :; do for p in /proc/[0-9]*; do n=$(readlink $p/ns/net 2>/dev/null) || continue; grep -qx "$n" /tmp/known || echo "$n" >> /tmp/seen; done; done',
    });
    const id = String(bait.process_id);
    await until('the bait runs', async () => (await sh(t, { command: 'cat /tmp/bait.pid' })).exit_code === 0, 20_000);
    await call('process', t, { action: 'kill', process_id: id });
    const seen = String((await sh(t, { command: 'cat /tmp/seen 2>/dev/null; true' })).output);
    const host = readlinkSync('/proc/self/ns/net');
    expect(seen).toMatch(/net:\[\d+\]/); // the watcher did see the kill script
    expect(seen).not.toContain(host);
  });

  it("a PTY command has a terminal of its own and cannot open this machine's other terminals", async () => {
    await configure({ sandbox: 'on' });
    const t = task();
    const r = await sh(t, { command: 'tty; ls /dev/pts; stty size', pty: true });
    // Its own devpts: its terminal, and nothing of the host's (whose terminals would be numbered beside it).
    expect(r.output).toMatch(/^\/dev\/pts\/0\r?\n0\s+ptmx\r?\n\d+ \d+\r?\n$/);
    expect(r.exit_code).toBe(0);
    expect((await sh(t, { command: 'exit 7', pty: true })).exit_code).toBe(7);
  });

  it('shares no kernel keyring with the worker: key management calls fail with EPERM inside, not outside', async () => {
    await configure({ sandbox: 'on' });
    // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0): the user keyring the worker's other processes share.
    const probe = `python3 -c "import ctypes,os; l=ctypes.CDLL(None,use_errno=True); r=l.syscall(${process.arch === 'arm64' ? 219 : 250},0,-4,0); print(r, os.strerror(ctypes.get_errno()) if r < 0 else 'ok')"`;
    const inside = await sh(task(), { command: probe });
    expect(inside.output).toBe('-1 Operation not permitted\n');
    const outside = execFileSync('/bin/sh', ['-c', probe], { encoding: 'utf8' });
    expect(outside).not.toMatch(/Operation not permitted/);
  });

  it('makes no set-user-ID or set-group-ID file in the task directory, whatever the tool; other modes work', async () => {
    await configure({ sandbox: 'on' });
    const t = task();
    const tries = [
      'cp /bin/sh s1 && chmod 4755 s1',
      'install -m 4755 /bin/sh s2',
      'cp /bin/sh s3 && chmod g+s s3',
      `python3 -c "import shutil,os; shutil.copy('/bin/sh','s4'); os.chmod('s4',0o4755)"`,
      `python3 -c "import os; os.close(os.open('s5', os.O_CREAT|os.O_WRONLY, 0o6755))"`,
      `perl -e 'open(my $f, ">", "s6"); chmod 04755, "s6"'`,
      'cp /bin/sh s7 && chmod 755 s7 && chmod u+s s7',
    ];
    for (const command of tries) await sh(t, { command });
    const modes = await sh(t, {
      command: 'stat -c "%n %a" s1 s2 s3 s4 s5 s6 s7 2>/dev/null; chmod 1777 s1 && echo sticky ok',
    });
    for (const line of String(modes.output)
      .trim()
      .split('\n')
      .filter((l) => /^s\d /.test(l)))
      expect(Number.parseInt(line.split(' ')[1]!, 8) & 0o6000, line).toBe(0);
    expect(modes.output).toMatch(/sticky ok/);
    const refused = await sh(t, { command: 'cp /bin/sh s8 && chmod 4755 s8' });
    expect(refused.exit_code).not.toBe(0);
    expect(refused.output).toMatch(/Operation not permitted/);
    for (const f of readdirSync(cwd).filter((f) => /^s\d$/.test(f)))
      expect(statSync(join(cwd, f)).mode & 0o6000, f).toBe(0);
  });

  it.skipIf(process.arch !== 'x64' || !existsSync('/usr/bin/gcc'))(
    'refuses the i386 system call interface (int 0x80), where a set-ID chmod would pass under another number',
    async () => {
      await configure({ sandbox: 'on' });
      const t = task();
      writeFileSync(
        join(cwd, 'chmod32.c'),
        [
          '#include <string.h>',
          '#include <sys/mman.h>',
          'int main(int c, char **v) {',
          '  char *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);',
          '  strcpy(p, v[1]);',
          '  long r;',
          '  __asm__ volatile("int $0x80" : "=a"(r) : "a"(15), "b"(p), "c"(04755) : "memory");',
          '  return r == 0 ? 0 : 1;',
          '}',
        ].join('\n'),
      );
      const r = await sh(t, { command: 'gcc -o chmod32 chmod32.c && cp /bin/sh s32 && ./chmod32 s32; echo "rc=$?"' });
      expect(r.output).toMatch(/rc=1/);
      expect(statSync(join(cwd, 's32')).mode & 0o6000).toBe(0);
    },
  );

  it("leaves what a person's git runs read-only: config and hooks of every repository found (nested, bare); commits work", async () => {
    await configure({ sandbox: 'on' });
    const repo = dir('tether-sbx-git-', '/var/tmp');
    const git = (args: string[], at = repo) => execFileSync('git', ['-C', at, ...args], { encoding: 'utf8' });
    git(['init', '-q']);
    git(['config', 'user.email', 'p@example.test']);
    git(['config', 'user.name', 'p']);
    mkdirSync(join(repo, 'sub'));
    git(['init', '-q'], join(repo, 'sub'));
    rmSync(join(repo, 'sub', '.git', 'hooks'), { recursive: true, force: true });
    mkdirSync(join(repo, 'a', 'b', 'c'), { recursive: true });
    git(['init', '-q'], join(repo, 'a', 'b', 'c'));
    git(['init', '-q', '--bare', join(repo, 'evil.git')]);
    const before = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const t = task();
    const run = (command: string) => callIn('terminal', t, repo, { command });
    const attempts = [
      "printf '[core]\\n\\tfsmonitor = touch PLANTED\\n' >> .git/config",
      "printf '[core]\\n\\tfsmonitor = touch PLANTED\\n' > evil.cfg && cp evil.cfg .git/config",
      'git config core.fsmonitor "touch PLANTED"',
      "printf '#!/bin/sh\\ntouch PLANTED\\n' > .git/hooks/post-checkout",
      'mkdir -p h && printf x > h/post-checkout && tar cf - -C h post-checkout | tar xf - -C .git/hooks',
      'mv .git .git-old && mkdir .git',
      "printf '#!/bin/sh\\ntouch PLANTED\\n' > sub/.git/hooks/post-checkout",
      "printf '[core]\\n\\tfsmonitor = touch PLANTED\\n' >> sub/.git/config",
      "(cd a/b/c/.git && printf '[core]\\n\\tfsmonitor = touch PLANTED\\n' >> config)",
      "printf '[alias]\\n\\tst = !touch PLANTED\\n' >> evil.git/config",
      "printf '#!/bin/sh\\ntouch PLANTED\\n' > evil.git/hooks/post-update",
    ];
    for (const command of attempts) expect((await run(command)).exit_code, command).not.toBe(0);
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(before);
    expect(readdirSync(join(repo, '.git', 'hooks')).filter((f) => !f.endsWith('.sample'))).toEqual([]);
    expect(readdirSync(join(repo, 'sub', '.git', 'hooks'))).toEqual([]);
    expect(readFileSync(join(repo, 'sub', '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor/);
    expect(readFileSync(join(repo, 'a', 'b', 'c', '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor/);
    expect(readFileSync(join(repo, 'evil.git', 'config'), 'utf8')).not.toMatch(/alias/);
    expect(existsSync(join(repo, 'evil.git', 'hooks', 'post-update'))).toBe(false);
    const commit = await run('echo hi > f && git add f && git commit -qm one && git log --oneline | wc -l');
    expect(commit.output).toMatch(/^1$/m);
    git(['status']);
    expect(existsSync(join(repo, 'PLANTED'))).toBe(false);
  });

  it('hides a credential created after the task shell started, and protects a repository made since', async () => {
    const creds = dir('tether-sbx-late-creds-', '/var/tmp');
    const kube = join(creds, 'kube', 'config');
    process.env.KUBECONFIG = kube;
    onTestFinished(() => {
      delete process.env.KUBECONFIG;
    });
    await configure({ sandbox: 'on' });
    const t = task();
    expect((await sh(t, { command: 'cd . && export KEEP=kept && echo started' })).output).toBe('started\n');
    mkdirSync(join(creds, 'kube'));
    writeFileSync(kube, 'token: LATE-CREATED-SECRET\n');
    const read = await sh(t, { command: `cat ${kube}; echo "$KEEP"` });
    expect(read.output).not.toMatch(/LATE-CREATED-SECRET/);
    expect(read.output).toMatch(/kept/);
    mkdirSync(join(cwd, 'late-repo'));
    execFileSync('git', ['-C', join(cwd, 'late-repo'), 'init', '-q']);
    const plant = await sh(t, { command: "printf '[core]\\n\\tfsmonitor = x\\n' >> late-repo/.git/config" });
    expect(plant.exit_code).not.toBe(0);
    expect(readFileSync(join(cwd, 'late-repo', '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor/);
  });

  it('cannot signal anything outside: kill -9 -1 and kill <outside pid> leave the machine alone', async () => {
    await configure({ sandbox: 'on' });
    const outsider = spawn('sleep', ['4321.5'], { stdio: 'ignore' });
    children.push(outsider);
    await until('the outside process runs', async () => hostProcesses('4321.5').length === 1, 10_000);
    const t = task();
    const direct = await sh(t, { command: `kill -TERM ${outsider.pid}` });
    expect(direct.exit_code).not.toBe(0);
    expect(direct.output).toMatch(/No such process/);
    await sh(t, { command: 'kill -9 -1; echo survived' });
    await sh(t, { command: `python3 -c "import os; os.kill(${process.pid}, 9)"` });
    expect(outsider.exitCode).toBeNull();
    expect(hostProcesses('4321.5')).toEqual([outsider.pid]);
    // The environment still works after the command killed everything it could see.
    expect((await sh(t, { command: 'echo still here' })).output).toBe('still here\n');
  });

  it('a setsid child is gone after its command times out, and after its command ends', async () => {
    await configure({ sandbox: {} });
    const t = task();
    const r = await sh(t, { command: 'setsid sleep 1234.25 & (setsid sleep 1234.25 &); sleep 60', timeout: 1 });
    expect(r.exit_code).toBe(124);
    await until('setsid children gone after the timeout', async () => hostProcesses('1234.25').length === 0, 15_000);
    const quick = await sh(t, { command: 'setsid -f sleep 1234.75; echo left' });
    expect(quick.output).toBe('left\n');
    await until('setsid child gone after its command ended', async () => hostProcesses('1234.75').length === 0, 15_000);
  });

  it('a background process and its setsid children are gone when the environment closes', async () => {
    await configure({ sandbox: {} });
    const t = task();
    const p = await sh(t, { command: 'setsid sleep 2345.5 & echo up; sleep 2345.75', background: true });
    expect(p.process_id).toMatch(/^proc_/);
    await until(
      'the background process runs',
      async () => hostProcesses('2345.5').length === 1 && hostProcesses('2345.75').length === 1,
      15_000,
    );
    await environmentManager().release(t);
    await until(
      'everything it started is gone',
      async () => hostProcesses('2345.5').length === 0 && hostProcesses('2345.75').length === 0,
      15_000,
    );
  });

  it("hides tether's own secrets and the configured hidden paths, and gives commands no Temporal credentials", async () => {
    // Outside /tmp: the sandbox's /tmp is its own, so a home there would be out of sight anyway.
    const home = dir('tether-sbx-home-', '/var/tmp');
    writeFileSync(join(home, 'config.yaml'), 'secret-config\n');
    mkdirSync(join(home, 'gateway'));
    writeFileSync(join(home, 'gateway', 'inbox-token'), 'secret-token\n');
    const keys = dir('tether-sbx-keys-', '/var/tmp');
    writeFileSync(join(keys, 'id_ed25519'), 'secret-key\n');
    const tlsKey = join(keys, 'client.key');
    writeFileSync(tlsKey, 'secret-tls\n');
    // A task whose directory lies inside a hidden one still has it.
    const inner = join(keys, 'project');
    mkdirSync(inner);
    const saved = { ...process.env };
    Object.assign(process.env, { TETHER_HOME: home, TEMPORAL_API_KEY: 'secret-api', TEMPORAL_TLS_KEY: tlsKey });
    try {
      await configure({ sandbox: { hidden: [keys] } });
      const t = task();
      const seen = await sh(t, {
        command: `ls -A ${home}; cat ${home}/gateway/inbox-token ${keys}/id_ed25519 ${tlsKey}; echo "api=[$TEMPORAL_API_KEY] tls=[$TEMPORAL_TLS_KEY]"; echo x > ${home}/planted`,
      });
      expect(seen.output).not.toMatch(/secret/);
      expect(seen.output).toMatch(/No such file or directory/);
      expect(seen.output).toMatch(/api=\[\] tls=\[\]/);
      expect(seen.output).toMatch(/planted: Permission denied/);
      expect(readdirSync(home).sort()).toEqual(['config.yaml', 'gateway', 'seccomp']);
      const own = await callIn('terminal', task(), inner, { command: 'echo made > here.txt && cat here.txt' });
      expect(own.output).toBe('made\n');
      expect(readFileSync(join(inner, 'here.txt'), 'utf8')).toBe('made\n');
    } finally {
      for (const k of ['TETHER_HOME', 'TEMPORAL_API_KEY', 'TEMPORAL_TLS_KEY'] as const) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('sandbox: off warns at start, and commands then run unsandboxed', async () => {
    const log = await configure({ sandbox: 'off' });
    expect(environmentManager().warnings).toEqual([
      expect.stringMatching(/terminal\.local\.sandbox is off: local commands run unsandboxed/),
    ]);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(environmentManager().warnings);
    const outside = dir('tether-sbx-off-', '/var/tmp');
    expect((await sh(task(), { command: `touch ${outside}/yes && echo ok` })).output).toBe('ok\n');
    expect(existsSync(join(outside, 'yes'))).toBe(true);
  });

  it('sandbox off: a setsid child still goes at the timeout and when the environment closes (found by an inherited mark)', async () => {
    await configure({ sandbox: 'off' });
    const t = task();
    const r = await sh(t, { command: 'setsid sleep 3456.25 & (setsid sleep 3456.25 &); sleep 60', timeout: 1 });
    expect(r.exit_code).toBe(124);
    await until('setsid children gone after the timeout', async () => hostProcesses('3456.25').length === 0, 15_000);
    // Unsandboxed, a command that ends normally leaves its detached children running (nohup works) until the run ends.
    expect((await sh(t, { command: '(setsid sleep 3456.75 &); echo left' })).output).toBe('left\n');
    await until('the detached child runs', async () => hostProcesses('3456.75').length === 1, 15_000);
    await environmentManager().release(t);
    await until('gone when the environment closes', async () => hostProcesses('3456.75').length === 0, 15_000);
  });

  it('a missing bwrap stops start-up with a message naming the package, never a silent fallback', async () => {
    await expect(configure({ sandbox: { bwrap: '/nonexistent/bwrap' } })).rejects.toThrow(
      /^terminal\.local\.sandbox: bubblewrap \(bwrap\) not found \(terminal\.local\.sandbox\.bwrap is \/nonexistent\/bwrap\); install the package 'bubblewrap' \(Debian\/Ubuntu: apt-get install bubblewrap\)/,
    );
    process.env.TETHER_BWRAP = '/nonexistent/bwrap-env';
    try {
      await expect(configure({})).rejects.toThrow(/TETHER_BWRAP is \/nonexistent\/bwrap-env.*bubblewrap/);
    } finally {
      delete process.env.TETHER_BWRAP;
    }
  });

  it('checks terminal.local strictly, one line naming the key', async () => {
    await expect(configure({ sandbox: { writabel: [] } })).rejects.toThrow(
      /^terminal\.local\.sandbox: Unrecognized key: "writabel"$/,
    );
    await expect(configure({ sandbox: 'maybe' })).rejects.toThrow(
      /^terminal\.local\.sandbox: off, on, or a mapping with enabled, network, egress, writable, hidden, expose, protected, limits and bwrap$/,
    );
    await expect(configure({ sandbox: { writable: ['relative/dir'] } })).rejects.toThrow(
      /^terminal\.local\.sandbox\.writable\.0: an absolute path/,
    );
    await expect(configure({ sandbox: { network: 'no' } })).rejects.toThrow(
      /^terminal\.local\.sandbox\.network: proxy, direct, host or false$/,
    );
    await expect(configure({ sandbox: { egress: { allow: ['ok.example', 'bad host'] } } })).rejects.toThrow(
      /^terminal\.local\.sandbox\.egress\.allow\.1: bad host: not a valid host name$/,
    );
    await expect(configure({ sandbox: { egress: { resolve: { 'a.example': '10.0.0.1:80' } } } })).rejects.toThrow(
      /^terminal\.local\.sandbox\.egress\.resolve\.a\.example: "10\.0\.0\.1:80": give a loopback address and port \(127\.0\.0\.1:8443\); this map is for tests$/,
    );
    await expect(configure({ sandbox: { egress: { alow: [] } } })).rejects.toThrow(
      /^terminal\.local\.sandbox\.egress: Unrecognized key: "alow"$/,
    );
    await expect(configure({ sandbox: { writable: ['/nonexistent/tether-dir'] } })).rejects.toThrow(
      /^terminal\.local\.sandbox\.writable: \/nonexistent\/tether-dir does not exist$/,
    );
    await expect(configure({ sandboxx: 'off' })).rejects.toThrow(/^terminal\.local: Unrecognized key: "sandboxx"$/);
    mkdirSync(join(cwd, 'sub'), { recursive: true });
    cwd = join(cwd, 'sub');
    await configure({ sandbox: 'on' });
    expect((await sh(task(), { command: 'pwd' })).output).toBe(`${cwd}\n`);
  });
});

describe('hidden credentials in a task directory that holds them', () => {
  it('cannot be taken out of hiding by renaming or removing a directory above them', async () => {
    const home = dir('tether-sbx-home-');
    mkdirSync(join(home, '.docker'));
    writeFileSync(join(home, '.docker/config.json'), '{"auths":{"x":{"auth":"SECRET-DOCKER"}}}');
    mkdirSync(join(home, '.config/gh'), { recursive: true });
    writeFileSync(join(home, '.config/gh/hosts.yml'), 'oauth_token: SECRET-GH');
    const saved = cwd;
    cwd = home;
    try {
      await configure({ sandbox: { hidden: [join(home, '.docker/config.json'), join(home, '.config/gh')] } });
      const t = task();
      const moved = await sh(t, { command: 'mv .docker moved-docker; mv .config moved-config; rm -rf .config; ls -a' });
      expect(moved.output).toMatch(/Device or resource busy|Resource busy/);
      const after = await sh(t, {
        command:
          'cat .docker/config.json moved-docker/config.json .config/gh/hosts.yml moved-config/gh/hosts.yml 2>&1; true',
      });
      expect(after.output).not.toContain('SECRET');
      // Still writable as before: the task can work in those directories.
      expect((await sh(t, { command: 'echo ok > .docker/other.json && cat .docker/other.json' })).output).toBe('ok\n');
    } finally {
      cwd = saved;
    }
  });
});
