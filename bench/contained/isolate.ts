// Where eval:contained runs: its own mount, network and PID namespaces, with every system directory an overlay whose
// changes vanish when it ends, and its own memory and process cap. A command that escapes the sandbox under test then
// damages only the eval's view of this machine, never the machine (other people's files and processes). Runs in the
// eval's process before anything else (outer: re-executes itself inside; inner: makes the mounts).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = 'TETHER_EVAL_ISOLATED';

/** Directories made overlays inside: a canary may be made anywhere under them, and nothing written there stays. */
export const OVERLAID = ['/etc', '/var', '/usr', '/opt', '/srv', '/home', '/root', '/work', '/boot', '/media'];

/** The eval's own cap (not the task's limits under test): a memory hog that escapes them stops here. */
const CAP = { memory: 8 * 1024 ** 3, pids: 8192, tmpfs: '3g' };

export const isolated = (): boolean => process.env[MARK] === '1';

/**
 * PID 1 of the eval's namespace: runs the eval and reaps every process that ends up its child. The sandbox's helpers
 * leave orphans (a bwrap whose parent ended first); an init that does not wait for them fills the namespace with
 * zombies, which count against the process cap. When the eval ends, PID 1 ends, and the kernel ends the rest.
 */
const REAPER = [
  'import os, signal, subprocess, sys',
  'child = subprocess.Popen(sys.argv[1:])',
  'def forward(sig, _frame):',
  '    try: child.send_signal(sig)',
  '    except Exception: pass',
  'for sig in (signal.SIGTERM, signal.SIGINT): signal.signal(sig, forward)',
  'code = 1',
  'while True:',
  '    try: pid, status = os.waitpid(-1, 0)',
  '    except ChildProcessError: break',
  '    except InterruptedError: continue',
  '    if pid == child.pid:',
  '        code = os.waitstatus_to_exitcode(status)',
  '        break',
  'sys.exit(code if code >= 0 else 128 - code)',
].join('\n');

function need(program: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  return r.status === 0 ? undefined : program;
}

/** A cgroup of its own with the cap (v1 memory and pids controllers, or v2), for this process and its children. */
function capSelf(): { remove: () => void; note?: string } {
  const name = `tether-eval-${process.pid}`;
  const made: string[] = [];
  const tryGroup = (dir: string, files: Record<string, string>): boolean => {
    try {
      mkdirSync(dir);
      made.push(dir);
      for (const [f, v] of Object.entries(files)) writeFileSync(join(dir, f), v);
      writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
      return true;
    } catch {
      return false;
    }
  };
  const v1 = existsSync('/sys/fs/cgroup/memory/memory.limit_in_bytes');
  const ok = v1
    ? tryGroup(`/sys/fs/cgroup/memory/${name}`, { 'memory.limit_in_bytes': String(CAP.memory) }) &&
      tryGroup(`/sys/fs/cgroup/pids/${name}`, { 'pids.max': String(CAP.pids) })
    : tryGroup(`/sys/fs/cgroup/${name}`, { 'memory.max': String(CAP.memory), 'pids.max': String(CAP.pids) });
  const remove = (): void => {
    for (const dir of made.reverse()) {
      try {
        // The processes left with the namespace's end; move this one back out first.
        writeFileSync(join(dir, '..', 'cgroup.procs'), String(process.pid));
        rmdirSync(dir);
      } catch {
        // still busy a moment after the end: the kernel removes nothing, a later run's name differs
      }
    }
  };
  return ok ? { remove } : { remove, note: 'no cgroup could be made here: the eval runs without its own memory cap' };
}

/**
 * Outside the namespaces: re-executes this script inside new ones (as root; otherwise in a user namespace of its own
 * where the kernel allows it) and exits with its code. Returns only inside.
 */
export async function enterIsolation(tee?: string): Promise<void> {
  if (isolated()) return;
  const missing = ['unshare', 'ip', 'iptables', 'mount', 'nsenter', 'openssl', 'git', 'python3']
    .map(need)
    .filter(Boolean);
  if (missing.length > 0) {
    process.stderr.write(
      `eval:contained: ${missing.join(', ')} not found; install util-linux, iproute2, iptables, openssl and git\n`,
    );
    process.exit(2);
  }
  // Inside, /tmp is a tmpfs of its own: code under the machine's /tmp would vanish from under the eval's helpers.
  const checkout = fileURLToPath(new URL('../..', import.meta.url));
  if ([checkout, process.cwd()].some((p) => p === '/tmp/' || p.startsWith('/tmp/'))) {
    process.stderr.write(
      `eval:contained: run it from a checkout outside /tmp (${checkout}): inside, /tmp is its own\n`,
    );
    process.exit(2);
  }
  const cap = capSelf();
  if (cap.note) process.stderr.write(`eval:contained: warning: ${cap.note}\n`);
  const root = process.getuid?.() === 0;
  const args = [
    ...(root ? [] : ['--user', '--map-root-user']),
    '--mount',
    '--net',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--',
    'python3',
    '-c',
    REAPER,
    process.execPath,
    // The stand-ins' private CA is added to the system's store inside: Node's TLS clients read that store.
    '--use-openssl-ca',
    ...process.execArgv,
    ...process.argv.slice(1),
  ];
  // What the eval prints is also written to `tee` here, outside: inside, every file it writes is in its overlay.
  const child = spawn('unshare', args, {
    stdio: ['inherit', tee ? 'pipe' : 'inherit', 'inherit'],
    env: { ...process.env, [MARK]: '1' },
  });
  if (tee) {
    writeFileSync(tee, '');
    child.stdout!.on('data', (d: Buffer) => {
      process.stdout.write(d);
      appendFileSync(tee, d);
    });
  }
  // unshare does not pass signals on; killing it kills the namespace's init, and with it every process inside.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill('SIGKILL'));
  const code = await new Promise<number>((resolve) =>
    child.on('exit', (c, s) => resolve(c ?? (s === 'SIGINT' ? 130 : 1))),
  );
  cap.remove();
  process.exit(code);
}

const sh = (cmd: string, args: string[]): void => {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
};

/** Inside: private mounts, a /tmp of its own, the overlays, and loopback up. */
export function makeMounts(): void {
  sh('mount', ['--make-rprivate', '/']);
  sh('mount', ['-t', 'tmpfs', '-o', `size=${CAP.tmpfs},mode=1777`, 'tether-eval-tmp', '/tmp']);
  const layers = '/tmp/.tether-eval-layers';
  mkdirSync(layers);
  sh('mount', ['-t', 'tmpfs', '-o', `size=${CAP.tmpfs}`, 'tether-eval-layers', layers]);
  for (const dir of OVERLAID) {
    if (!existsSync(dir) || lstatSync(dir).isSymbolicLink() || !lstatSync(dir).isDirectory()) continue;
    const name = dir.slice(1);
    mkdirSync(join(layers, name, 'upper'), { recursive: true });
    mkdirSync(join(layers, name, 'work'), { recursive: true });
    sh('mount', [
      '-t',
      'overlay',
      `tether-eval-${name}`,
      '-o',
      `lowerdir=${dir},upperdir=${join(layers, name, 'upper')},workdir=${join(layers, name, 'work')}`,
      dir,
    ]);
  }
  sh('ip', ['link', 'set', 'lo', 'up']);
}
