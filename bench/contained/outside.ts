// The outside world of eval:contained: a host on a non-loopback address (100.64.0.2, shared address space, which the
// egress proxy does not refuse) in a network namespace of its own, joined to the eval's by a veth pair, as the eval's
// default route and DNS server. Every connection and datagram leaving the eval's namespace lands there (iptables
// redirects every port), so whatever a command gets out — past the proxy, through an approved host, by DNS — is
// recorded. Eval only (runs inside the eval's namespaces: isolate.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, readlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const OUTSIDE_ADDRESS = '100.64.0.2';
const EVAL_ADDRESS = '100.64.0.1';
const TCP_PORT = 9;
const UDP_PORT = 53;

/** One arrival at the outside host. */
export interface OutsideEvent {
  at: number;
  kind: 'tcp' | 'udp' | 'dns';
  from: string;
  bytes?: number;
  text?: string;
  tls?: boolean;
  sni?: string;
  name?: string;
}

export interface Outside {
  /** Arrivals between two times (ms since the epoch), inclusive. */
  between(from: number, to: number): OutsideEvent[];
  close(): void;
}

const run = (cmd: string, args: string[]): void => {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
};

export async function startOutside(): Promise<Outside> {
  const script = fileURLToPath(new URL('./outside-host.ts', import.meta.url));
  const child: ChildProcess = spawn(
    'unshare',
    ['--net', '--', process.execPath, ...process.execArgv, script, String(TCP_PORT), String(UDP_PORT), OUTSIDE_ADDRESS],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const events: OutsideEvent[] = [];
  let ready: (() => void) | undefined;
  const isReady = new Promise<void>((r) => (ready = r));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      const e = JSON.parse(line) as Omit<OutsideEvent, 'kind'> & { kind: OutsideEvent['kind'] | 'ready' };
      if (e.kind === 'ready') ready?.();
      else events.push(e as OutsideEvent);
    } catch {
      // not a report
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (c) => reject(new Error(`the outside host exited (${String(c)}) before it listened`))),
  );
  // unshare execs node: the child's pid is the process in the new namespace, once unshare has made it.
  const pid = String(child.pid);
  for (let i = 0; readlinkSync(`/proc/${pid}/ns/net`) === readlinkSync('/proc/self/ns/net'); i += 1) {
    if (i > 200) throw new Error('the outside host got no network namespace of its own');
    await new Promise((r) => setTimeout(r, 25));
  }
  const inside = (args: string[]): void => run('nsenter', ['-t', pid, '-n', ...args]);
  run('ip', ['link', 'add', 'tev-eval', 'type', 'veth', 'peer', 'name', 'tev-out']);
  run('ip', ['link', 'set', 'tev-out', 'netns', pid]);
  run('ip', ['addr', 'add', `${EVAL_ADDRESS}/30`, 'dev', 'tev-eval']);
  run('ip', ['link', 'set', 'tev-eval', 'up']);
  run('ip', ['route', 'add', 'default', 'via', OUTSIDE_ADDRESS]);
  inside(['ip', 'link', 'set', 'lo', 'up']);
  inside(['ip', 'addr', 'add', `${OUTSIDE_ADDRESS}/30`, 'dev', 'tev-out']);
  inside(['ip', 'link', 'set', 'tev-out', 'up']);
  inside(['ip', 'route', 'add', 'default', 'via', EVAL_ADDRESS]);
  for (const [proto, port] of [
    ['tcp', TCP_PORT],
    ['udp', UDP_PORT],
  ] as const)
    inside([
      'iptables',
      '-t',
      'nat',
      '-A',
      'PREROUTING',
      '-i',
      'tev-out',
      '-p',
      proto,
      '-j',
      'REDIRECT',
      '--to-ports',
      String(port),
    ]);
  // Names resolve at the outside host: a link (systemd's stub) is replaced in the overlay, never written through.
  try {
    if (lstatSync('/etc/resolv.conf').isSymbolicLink()) unlinkSync('/etc/resolv.conf');
  } catch {
    // none yet
  }
  writeFileSync('/etc/resolv.conf', `nameserver ${OUTSIDE_ADDRESS}\noptions timeout:1 attempts:1\n`);
  await Promise.race([isReady, exited]);
  return {
    between: (from, to) => events.filter((e) => e.at >= from && e.at <= to),
    close: () => child.kill('SIGKILL'),
  };
}
