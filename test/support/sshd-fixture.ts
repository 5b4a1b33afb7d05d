// Test fixture: Debian's real /usr/sbin/sshd on a free loopback port with throw-away host and client keys. Worker-only.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/temporal/dev-server.js';

const SSHD = '/usr/sbin/sshd';
const run = promisify(execFile);

export interface SshdFixture {
  port: number;
  /** The client's private key (in authorized_keys). */
  keyPath: string;
  /** A known_hosts file with `[127.0.0.1]:PORT` and the server's host key. */
  knownHostsPath: string;
  /** The server's host public key line (`ssh-ed25519 AAAA...`). */
  hostPublicKey: string;
  user: string;
  dir: string;
  /** Stops the server and kills every session it forked and their commands (connections drop, as when a host dies). */
  stop(): Promise<void>;
  /** Stops, then starts again on the same port with the same host key. */
  restart(): Promise<void>;
  /** Stops and removes the temp dir. */
  dispose(): Promise<void>;
}

/** Why the SSH tests cannot run here, or undefined when they can. */
export function sshdAvailable(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} is missing (Debian package openssh-server)`;
  if (!existsSync('/usr/bin/ssh-keygen')) return '/usr/bin/ssh-keygen is missing (Debian package openssh-client)';
  return undefined;
}

async function keygen(path: string): Promise<void> {
  await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'tether-test', '-f', path]);
}

/** Pids of every process below `pid` (sshd's per-connection children start sessions of their own, so no group kill). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name, which is in parentheses and may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const todo = [pid];
  while (todo.length > 0) {
    const next = todo.pop() as number;
    for (const child of children.get(next) ?? []) {
      out.push(child);
      todo.push(child);
    }
  }
  return out;
}

function startDaemon(config: string, port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sshd did not start listening on 127.0.0.1:${port} within 10 s:\n${log}`));
    }, 10_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(`Server listening on 127.0.0.1 port ${port}`)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${code} before listening:\n${log}`));
    });
  });
}

/** The forced command: what a noisy startup file prints, then the asked command as sshd runs it. */
const LOGIN_NOISE = [
  "echo 'login-noise: welcome to the test host'",
  "echo 'login-noise: pyenv: command not found' >&2",
  'c=$SSH_ORIGINAL_COMMAND; unset SSH_ORIGINAL_COMMAND; exec "$SHELL" -c "$c"',
  '',
].join('\n');

export async function startSshd(): Promise<SshdFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-sshd-'));
  const hostKey = join(dir, 'host_key');
  const keyPath = join(dir, 'client_key');
  await Promise.all([keygen(hostKey), keygen(keyPath)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${keyPath}.pub`));
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'LogLevel VERBOSE',
      // sshd runs every command through the login shell, whose startup files often print first (a CI host's
      // ~/.bashrc printed "pyenv: command not found" on both streams). This prints the same way, then runs the
      // command through the login shell as sshd would; nothing of it is inherited by the command.
      `ForceCommand /bin/sh ${join(dir, 'login-noise.sh')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'login-noise.sh'), LOGIN_NOISE);
  const hostPublicKey = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, `[127.0.0.1]:${port} ${hostPublicKey}\n`);
  // sshd refuses to start without its privilege-separation directory.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  let daemon: ChildProcess | undefined = await startDaemon(config, port);
  const stop = async () => {
    const d = daemon;
    daemon = undefined;
    if (!d || d.pid === undefined || d.exitCode !== null) return;
    const sessions = descendants(d.pid);
    const exited = new Promise<void>((r) => d.once('exit', () => r()));
    d.kill('SIGTERM');
    // SIGKILL, so that no session gets to send an exit status: the connection just drops, as when a host dies.
    for (const pid of sessions) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await exited;
  };
  return {
    port,
    keyPath,
    knownHostsPath,
    hostPublicKey,
    user: userInfo().username,
    dir,
    stop,
    restart: async () => {
      await stop();
      daemon = await startDaemon(config, port);
    },
    dispose: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
