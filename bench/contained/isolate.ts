// Where eval:contained runs: its own mount, network and PID namespaces, every system directory an overlay whose
// changes vanish when it ends, a /dev without the machine's disks, sysctls and /sys read-only, the capabilities that
// act on the machine itself dropped, and its own memory and process cap. A command that escapes the sandbox under
// test (or runs with it off) then damages only the eval's view of this machine, never the machine (other people's
// files and processes). Runs in the eval's process before anything else (outer: re-executes itself inside; inner:
// makes the mounts).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdirSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = 'TETHER_EVAL_ISOLATED';

/** Directories made overlays inside: a canary may be made anywhere under them, and nothing written there stays. */
export const OVERLAID = ['/etc', '/var', '/usr', '/opt', '/srv', '/home', '/root', '/work', '/boot', '/media'];

/** The eval's own cap (not the task's limits under test): a memory hog that escapes them stops here. */
const CAP = { memory: 8 * 1024 ** 3, pids: 8192, tmpfs: '3g' };

export const isolated = (): boolean => process.env[MARK] === '1';

/**
 * Capabilities dropped from the bounding set of everything the eval starts (PR_CAPBSET_DROP): CAP_LINUX_IMMUTABLE,
 * CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_SYS_PACCT, CAP_SYS_BOOT, CAP_SYS_TIME, CAP_AUDIT_CONTROL, CAP_MAC_OVERRIDE,
 * CAP_MAC_ADMIN, CAP_SYSLOG, CAP_WAKE_ALARM. None is needed by the worker, bwrap, the dev server or the outside host.
 */
const DROPPED_CAPS = [9, 16, 17, 20, 22, 25, 30, 32, 33, 34, 35];

/**
 * PID 1 of the eval's namespace: runs the eval and reaps every process that ends up its child. The sandbox's helpers
 * leave orphans (a bwrap whose parent ended first); an init that does not wait for them fills the namespace with
 * zombies, which count against the process cap. When the eval ends, PID 1 ends, and the kernel ends the rest.
 */
const REAPER = [
  'import ctypes, os, signal, subprocess, sys',
  // What a command escaping the sandbox could do to the machine itself, not through a namespace: load kernel modules,
  // set the clock, reboot, raw I/O, accounting, audit, MAC policy, the kernel log, immutable flags, wake alarms.
  'libc = ctypes.CDLL(None, use_errno=True)',
  `for cap in (${DROPPED_CAPS.join(', ')}): libc.prctl(24, cap, 0, 0, 0)`,
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

/** Device nodes a program needs; the machine's disks and the rest of its /dev stay out of the eval's view. */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty', 'net/tun'];

/** A /dev of the eval's own: the harmless nodes, a private devpts and /dev/shm, the usual links. */
function makeDev(layers: string): void {
  const kept = join(layers, 'dev-nodes');
  for (const d of DEVICES.filter((n) => existsSync(`/dev/${n}`))) {
    mkdirSync(dirname(join(kept, d)), { recursive: true });
    writeFileSync(join(kept, d), '');
    sh('mount', ['--bind', `/dev/${d}`, join(kept, d)]);
  }
  sh('mount', ['-t', 'tmpfs', '-o', 'mode=755,size=1m', 'tether-eval-dev', '/dev']);
  for (const d of DEVICES.filter((n) => existsSync(join(kept, n)))) {
    mkdirSync(dirname(`/dev/${d}`), { recursive: true });
    writeFileSync(`/dev/${d}`, '');
    sh('mount', ['--bind', join(kept, d), `/dev/${d}`]);
  }
  mkdirSync('/dev/pts');
  sh('mount', ['-t', 'devpts', '-o', 'newinstance,ptmxmode=0666,mode=620', 'devpts', '/dev/pts']);
  symlinkSync('pts/ptmx', '/dev/ptmx');
  mkdirSync('/dev/shm');
  sh('mount', ['-t', 'tmpfs', '-o', 'mode=1777,size=256m', 'tether-eval-shm', '/dev/shm']);
  symlinkSync('/proc/self/fd', '/dev/fd');
  ['stdin', 'stdout', 'stderr'].forEach((n, i) => symlinkSync(`/proc/self/fd/${i}`, `/dev/${n}`));
}

/**
 * Inside: private mounts, a /tmp and a /dev of its own, the overlays, sysctls and /sys read-only (its cgroups stay
 * writable: the sandbox's limits live there), and loopback up.
 */
export function makeMounts(): void {
  sh('mount', ['--make-rprivate', '/']);
  sh('mount', ['-t', 'tmpfs', '-o', `size=${CAP.tmpfs},mode=1777`, 'tether-eval-tmp', '/tmp']);
  const layers = '/tmp/.tether-eval-layers';
  mkdirSync(layers);
  sh('mount', ['-t', 'tmpfs', '-o', `size=${CAP.tmpfs}`, 'tether-eval-layers', layers]);
  makeDev(layers);
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
  for (const p of ['/proc/sys', '/proc/sysrq-trigger'].filter((q) => existsSync(q))) {
    sh('mount', ['--bind', p, p]);
    sh('mount', ['-o', 'remount,bind,ro', p]);
  }
  sh('mount', ['--rbind', '/sys', '/sys']);
  sh('mount', ['-o', 'remount,bind,ro', '/sys']);
  sh('ip', ['link', 'set', 'lo', 'up']);
}
