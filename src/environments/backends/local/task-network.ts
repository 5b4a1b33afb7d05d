// One network namespace per task for the local sandbox: every command, background process and PTY of a task joins
// it, so they share a loopback (a server a task starts on 127.0.0.1 is reachable by its later commands, and by no
// other task) while this machine's loopback (the Temporal dev server, databases, the worker's own ports) is out of
// reach. With the network on, slirp4netns gives the namespace the outside network with host loopback disabled;
// off, it has only its own loopback. Worker-only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { EnvironmentError } from '../../types.js';
import { namespaceResolvText } from './namespace-resolv.js';

/** How long making the namespace (bwrap) and bringing up its network (slirp4netns) may take. */
const START_MS = 10_000;

/** A file of tether's mounted read-only over one of the machine's inside the sandbox. */
export interface FileMount {
  file: string;
  target: string;
}

export interface TaskNetworkTools {
  bwrap: string;
  /** The slirp4netns binary; undefined: no outside network (only the namespace's own loopback). */
  slirp4netns?: string;
  nsenter: string;
}

/** Reads a child's fd until `done` says the text so far is complete; rejects when the fd closes before that. */
function readUntil(stream: Readable, done: (text: string) => boolean, what: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => finish(new Error(`${what()}: no answer within ${START_MS / 1000} s`)), START_MS);
    const finish = (err?: Error): void => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.removeAllListeners('close');
      if (err) reject(err);
      else resolve(text);
    };
    stream.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (done(text)) finish();
    });
    stream.on('close', () => (done(text) ? finish() : finish(new Error(what()))));
    stream.on('error', () => undefined);
  });
}

/**
 * Waits until the holder's child runs its program (`sleep`): bwrap reports the child before the child has set itself
 * up, and that setup can still fail (bringing up the namespace's loopback failed now and then on a loaded machine,
 * "loopback: Failed RTM_NEWADDR"), leaving a namespace nobody holds. Rejects when bwrap ends first.
 */
async function childRunning(holder: ChildProcess, owner: number, why: () => string): Promise<void> {
  const started = Date.now();
  for (;;) {
    let comm = '';
    try {
      comm = readFileSync(`/proc/${owner}/comm`, 'utf8').trim();
    } catch {
      // gone: bwrap ends too, and says why
    }
    if (comm === 'sleep') return;
    if (holder.exitCode !== null || holder.signalCode) throw new Error(why());
    if (Date.now() - started > START_MS) throw new Error(`${why()}: no answer within ${START_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** How many times making a namespace is tried before its failure is reported (see childRunning). */
const ATTEMPTS = 3;

/** The last lines a helper wrote to stderr, for an error message. */
function tail(lines: string[]): string {
  const text = lines.join('').trim().split('\n').slice(-2).join('; ');
  return text || 'no message';
}

function stderrOf(child: ChildProcess): string[] {
  const out: string[] = [];
  child.stderr?.on('data', (c: Buffer) => {
    if (out.join('').length < 4_000) out.push(c.toString('utf8'));
  });
  return out;
}

/** The namespace's resolv.conf (namespace-resolv.ts), written where it can be mounted; undefined when not needed. */
function namespaceResolvConf(): FileMount | undefined {
  let text: string | undefined;
  let target: string;
  try {
    target = realpathSync('/etc/resolv.conf');
    text = namespaceResolvText(readFileSync(target, 'utf8'));
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  // Named for this worker, so a later worker can remove it once this one is gone (leftover-dirs.ts).
  const file = join(mkdtempSync(join(tmpdir(), `tether-net-${process.pid}-`)), 'resolv.conf');
  writeFileSync(file, text);
  return { file, target };
}

/**
 * Kills the namespace's owner before its bwrap: bwrap's child dies with bwrap only once it has set itself up to,
 * which a namespace closed right after it was made (the start-up check) may not have done yet. While bwrap runs, the
 * pid is still its child's (not yet reaped, so not reused).
 */
function killOwner(holder: ChildProcess, owner: number): void {
  if (holder.exitCode !== null || holder.signalCode) return;
  try {
    process.kill(owner, 'SIGKILL');
  } catch {
    // already gone
  }
}

export class TaskNetwork {
  private closed = false;

  private constructor(
    /** The holder: a bwrap whose child sleeps in the namespace for as long as the task's environment lives. */
    private readonly holder: ChildProcess,
    /** The namespace's owner (the holder's child): its /proc entry names the namespace to join. */
    readonly owner: number,
    /** The namespace's inode, as bwrap reported it. */
    private readonly netns: number,
    private readonly tools: TaskNetworkTools,
    private readonly slirp: ChildProcess | undefined,
    /** A resolv.conf to mount over the machine's (see namespaceResolvConf). */
    readonly resolvConf: FileMount | undefined,
  ) {}

  /**
   * Makes the namespace and, with `tools.slirp4netns`, brings up its outside network; throws an EnvironmentError
   * with the helper's own reason when either fails (and leaves nothing running).
   */
  static async open(tools: TaskNetworkTools): Promise<TaskNetwork> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await TaskNetwork.openOnce(tools);
      } catch (err) {
        if (attempt >= ATTEMPTS) throw err;
      }
    }
  }

  private static async openOnce(tools: TaskNetworkTools): Promise<TaskNetwork> {
    const unprivileged = process.getuid?.() !== 0;
    // Not root: the namespace needs a user namespace of its own to be made, and joined, without privileges.
    const holderArgs = ['--ro-bind', '/', '/', ...(unprivileged ? ['--unshare-user'] : []), '--unshare-net'];
    holderArgs.push('--cap-drop', 'ALL', '--die-with-parent', '--info-fd', '3', '--', 'sleep', 'infinity');
    const holder = spawn(tools.bwrap, holderArgs, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: true });
    const holderErr = stderrOf(holder);
    holder.on('error', () => undefined);
    const fail = (what: string): EnvironmentError =>
      new EnvironmentError('Environment.Config', 'local', `the sandbox's network namespace: ${what}`);
    let slirp: ChildProcess | undefined;
    let owner: number | undefined;
    const cleanUp = (): void => {
      slirp?.kill('SIGKILL');
      if (owner !== undefined) killOwner(holder, owner);
      holder.kill('SIGKILL');
    };
    try {
      const info = await readUntil(
        holder.stdio[3] as Readable,
        (t) => /"child-pid":\s*\d+/.test(t) && /"net-namespace":\s*\d+/.test(t),
        () => `${tools.bwrap} could not make it (${tail(holderErr)})`,
      ).catch((err: Error) => {
        throw fail(err.message);
      });
      owner = Number(/"child-pid":\s*(\d+)/.exec(info)![1]);
      const netns = Number(/"net-namespace":\s*(\d+)/.exec(info)![1]);
      await childRunning(holder, owner, () => `${tools.bwrap} could not make it (${tail(holderErr)})`).catch(
        (err: Error) => {
          throw fail(err.message);
        },
      );
      if (tools.slirp4netns) {
        // fd 3: slirp4netns writes "1" once the interface is up; fd 4: it exits when this end closes (the worker
        // ended, or close() below), so it never outlives the task's environment.
        const args = ['--configure', '--mtu=65520', '--disable-host-loopback', '--enable-seccomp'];
        args.push('--ready-fd=3', '--exit-fd=4');
        // It parses every packet a command sends: as root, in a mount namespace of its own with every capability
        // dropped but binding low ports, so a flaw in it is not root on this machine. Not as root it runs with the
        // worker's own rights, and joins the user namespace that owns the network one (its sandbox cannot, there).
        if (unprivileged) args.push(`--userns-path=/proc/${owner}/ns/user`);
        else args.push('--enable-sandbox');
        args.push(String(owner), 'tap0');
        slirp = spawn(tools.slirp4netns, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
        slirp.on('error', () => undefined);
        const slirpErr = stderrOf(slirp);
        await readUntil(
          slirp.stdio[3] as Readable,
          (t) => t.includes('1'),
          () => `${tools.slirp4netns} could not bring up its network (${tail(slirpErr)})`,
        ).catch((err: Error) => {
          throw fail(err.message);
        });
      }
      return new TaskNetwork(holder, owner, netns, tools, slirp, tools.slirp4netns ? namespaceResolvConf() : undefined);
    } catch (err) {
      cleanUp();
      throw err;
    }
  }

  /**
   * `argv` run inside the namespace: nsenter joins it (and, not as root, the user namespace that owns it). The
   * owner's pid must still name the namespace made for this task (a pid reused after the holder died would not).
   */
  wrap(argv: string[]): string[] {
    const ns = `/proc/${this.owner}/ns`;
    let inode: number | undefined;
    try {
      inode = statSync(`${ns}/net`).ino;
    } catch {
      // the owner has ended
    }
    if (this.closed || inode !== this.netns)
      throw new EnvironmentError('Environment.Gone', 'local', "the task's network namespace has ended");
    const user = process.getuid?.() !== 0 ? ['--preserve-credentials', `--user=${ns}/user`] : [];
    return [this.tools.nsenter, ...user, `--net=${ns}/net`, '--', ...argv];
  }

  /** Whether the namespace (and its outside network, when it has one) is still there. */
  alive(): boolean {
    if (this.closed) return false;
    const up = (c: ChildProcess | undefined): boolean => c === undefined || (c.exitCode === null && !c.signalCode);
    return up(this.holder) && up(this.slirp);
  }

  /** Ends the outside network and the namespace (processes still inside keep only their loopback until they end). */
  close(): void {
    this.closed = true;
    (this.slirp?.stdio[4] as Readable | undefined)?.destroy();
    this.slirp?.kill('SIGKILL');
    killOwner(this.holder, this.owner);
    this.holder.kill('SIGKILL');
    if (this.resolvConf) rmSync(dirname(this.resolvConf.file), { recursive: true, force: true });
  }
}
