// One shared SSH connection per login (user, host, port, key) for the whole process, reference-counted, reconnecting after a drop. Worker-only.
import type { ClientChannel, PseudoTtyOptions } from 'ssh2';
import { connectOnce, type SshLink } from './connect.js';
import { poolKey, targetName, type SshTarget } from './settings.js';
import { EnvironmentError } from '../../types.js';

/** Connection attempts after a drop or at start, and the waits between them (bounded: about 5 s in all). */
const RETRY_DELAYS_MS = [500, 1_500, 3_000];

/** At most this many connections per login, however many sessions are asked for at once. */
const MAX_LINKS = 8;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Connects, retrying only failures that may pass (the network, a restarting server), never a configuration error. */
export async function connectWithRetry(
  connect: () => Promise<SshLink>,
  delaysMs: readonly number[] = RETRY_DELAYS_MS,
): Promise<SshLink> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connect();
    } catch (err) {
      const delay = delaysMs[attempt];
      if (!(err instanceof EnvironmentError) || err.code !== 'Environment.Unreachable' || delay === undefined)
        throw err;
      await sleep(delay);
    }
  }
}

export class SshConnection {
  private link: SshLink | undefined;
  private pending: Promise<SshLink> | undefined;
  /** Connections opened because the first one had as many sessions as the server allows. */
  private extras: SshLink[] = [];
  private pendingExtra: Promise<SshLink> | undefined;
  refs = 0;
  /** How many times a TCP connection was opened and logged in (one, as long as nothing dropped). */
  connects = 0;

  constructor(
    readonly target: SshTarget,
    private readonly connect: () => Promise<SshLink> = () => connectOnce(target),
  ) {}

  /** Connections held now: the shared one plus overflow connections. */
  get openLinks(): number {
    return (this.link ? 1 : 0) + this.extras.length;
  }

  get up(): boolean {
    return this.link !== undefined && this.link.lost === undefined;
  }

  /** The live connection, (re)connecting when there is none. Concurrent callers share one attempt. */
  acquire(retry = true): Promise<SshLink> {
    if (this.link && this.link.lost === undefined) return Promise.resolve(this.link);
    this.pending ??= (retry ? connectWithRetry(this.connect) : this.connect()).then(
      (link) => {
        this.pending = undefined;
        this.connects++;
        if (this.refs === 0) {
          // Everybody left while we were connecting.
          link.client.end();
        } else {
          this.link = link;
        }
        return link;
      },
      (err: unknown) => {
        this.pending = undefined;
        throw err;
      },
    );
    return this.pending;
  }

  /**
   * Opens a session channel running `command`. Reconnects once when the connection turns out to have dropped;
   * when the server refuses more sessions on it (sshd's MaxSessions, default 10), opens another connection
   * for the overflow, closed again once its last session ends.
   */
  async exec(command: string, pty: PseudoTtyOptions | undefined): Promise<{ channel: ClientChannel; link: SshLink }> {
    let reconnected = false;
    for (let links = 0; ;) {
      const primary = await this.acquire();
      this.extras = this.extras.filter((l) => l.lost === undefined);
      const link = [primary, ...this.extras].find((l) => !l.full) ?? (await this.addExtra());
      try {
        const channel = await openExec(link, command, pty);
        this.track(link, channel);
        return { channel, link };
      } catch (err) {
        if (link.lost !== undefined) {
          if (reconnected) throw link.lost;
          reconnected = true;
        } else if (/channel open failure/i.test((err as Error).message) && ++links < MAX_LINKS) {
          link.full = true;
        } else {
          throw this.execError(err as Error);
        }
      }
    }
  }

  /** One overflow connection at a time, shared by every spawn that was refused meanwhile. */
  private addExtra(): Promise<SshLink> {
    this.pendingExtra ??= connectWithRetry(this.connect).then(
      (link) => {
        this.pendingExtra = undefined;
        this.connects++;
        // Everybody left while we were connecting: the spawn then fails on the closed connection.
        if (this.refs === 0) link.client.end();
        else this.extras.push(link);
        return link;
      },
      (err: unknown) => {
        this.pendingExtra = undefined;
        throw err;
      },
    );
    return this.pendingExtra;
  }

  private track(link: SshLink, channel: ClientChannel): void {
    link.channels++;
    channel.once('close', () => {
      link.channels--;
      link.full = false;
      if (link.channels === 0 && this.extras.includes(link)) {
        this.extras = this.extras.filter((l) => l !== link);
        link.client.end();
      }
    });
  }

  private execError(err: Error): EnvironmentError {
    return new EnvironmentError(
      'Environment.Unreachable',
      'ssh',
      `${targetName(this.target)} refused a new session: ${err.message}`,
    );
  }

  close(): void {
    const links = [this.link, ...this.extras];
    this.link = undefined;
    this.extras = [];
    for (const link of links) {
      if (!link) continue;
      // Commands still running learn why their channel went away.
      link.lost ??= new EnvironmentError(
        'Environment.Gone',
        'ssh',
        `the connection to ${targetName(this.target)} was closed (environment closed)`,
      );
      link.client.end();
    }
  }
}

function openExec(link: SshLink, command: string, pty: PseudoTtyOptions | undefined): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    try {
      link.client.exec(command, pty ? { pty } : {}, (err, channel) => (err ? reject(err) : resolve(channel)));
    } catch (err) {
      // ssh2 throws synchronously when the socket is already gone.
      reject(err as Error);
    }
  });
}

const pool = new Map<string, SshConnection>();

/** Takes a reference on the shared connection for this target; give it back with releaseSshConnection. */
export function retainSshConnection(target: SshTarget): SshConnection {
  const key = poolKey(target);
  let conn = pool.get(key);
  if (!conn) {
    conn = new SshConnection(target);
    pool.set(key, conn);
  }
  conn.refs++;
  return conn;
}

/** Drops a reference; the last one closes the connection. */
export function releaseSshConnection(conn: SshConnection): void {
  conn.refs = Math.max(0, conn.refs - 1);
  if (conn.refs > 0) return;
  conn.close();
  const key = poolKey(conn.target);
  if (pool.get(key) === conn) pool.delete(key);
}

/** The shared connections that are held now (tests assert that transports share one). */
export function sshPoolSize(): number {
  return pool.size;
}
