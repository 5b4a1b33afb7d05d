// The Docker backend: one long-lived container per task, commands run by `docker exec`, leftovers of dead workers removed. Worker-only.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostLabels, leftByDeadWorker, tetherLabels } from '../../tether-labels.js';
import Docker from 'dockerode';
import type { BackendContext, BackendDefinition } from '../../backend-types.js';
import { dockerError, isNotFound } from './errors.js';
import { DockerProcess, type ExecTarget } from './exec.js';
import { dockerSettings, type DockerSettings } from './settings.js';
import { checkDockerEgress, CONTAINER_PROXY_PORT, containerTrustMounts, openContainerProxy } from './egress.js';
import { egressGate } from '../../egress/gate.js';
import { TRUST_VARIABLES } from '../../egress/trust.js';
import { proxyVariables, type TaskProxy } from '../../egress/task-proxy.js';
import type { Attribution } from '../../egress/gate.js';
import { networkNote } from '../../egress/network-note.js';
import { limitNotes, type LimitCounters } from '../../cgroups/files.js';
import { countersOfProcess } from '../../cgroups/of-process.js';
import { EnvironmentError, type SpawnOptions, type Transport, type TransportProcess } from '../../types.js';

/** Keeps the container alive; TERM ends it at once instead of after Docker's stop timeout. */
const KEEPALIVE = 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done';

/** Docker names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*; task ids may hold anything. */
function containerName(taskId: string): string {
  const safe = taskId
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[^a-zA-Z0-9]+/, '')
    .slice(0, 40);
  return `tether-${safe || 'task'}-${randomBytes(3).toString('hex')}`;
}

/** The part of `GET /info` used here (dockerode types it as any). */
interface DaemonInfo {
  InitBinary?: string;
  InitCommit?: { ID?: string };
}

export class DockerTransport implements Transport {
  readonly backend = 'docker';
  readonly capabilities = { streamsStdin: true, pty: true };
  /** The task's shell is one `docker exec` (no exec per command). */
  readonly persistentShell = {};
  readonly workdir: string;
  readonly name: string;
  private readonly docker: Docker;
  private container: Docker.Container | undefined;
  private closed = false;
  /** terminal.docker.egress: the proxy on the container's loopback. */
  private proxy: TaskProxy | undefined;
  private who: (() => Attribution) | undefined;
  /** Reads the container's cgroup counters (set by start() when they can be read from this machine). */
  private counters: (() => LimitCounters) | undefined;

  constructor(
    private readonly settings: DockerSettings,
    private readonly ctx: BackendContext,
  ) {
    this.docker = new Docker({ socketPath: settings.socket_path });
    this.workdir = settings.workdir;
    this.name = containerName(ctx.taskId);
  }

  /** The container's id once started (for tests and logs). */
  get containerId(): string | undefined {
    return this.container?.id;
  }

  async start(): Promise<void> {
    if (this.container) return;
    const s = this.settings;
    const info = (await this.docker.info().catch((error: unknown) => {
      throw dockerError(error, s.socket_path, 'docker info');
    })) as DaemonInfo;
    await this.ensureImage();
    // docker-init (tini) reaps the zombies orphaned commands leave; the daemon reports N/A when it lacks one.
    const init = Boolean(info.InitBinary) && info.InitCommit?.ID !== undefined && info.InitCommit.ID !== 'N/A';
    const tmpfs: Record<string, string> = {};
    if (s.read_only) {
      tmpfs['/tmp'] = 'rw,nosuid,nodev,exec,mode=1777';
      if (!s.mount_cwd) tmpfs[s.workdir] = 'rw,nosuid,nodev,exec';
    }
    // With egress, commands trust the proxy's CA: its bundle mounted read-only and named by the usual variables.
    const trust = s.egress ? await egressGate().trust() : undefined;
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer({
        name: this.name,
        Image: s.image,
        Entrypoint: ['sh', '-c', KEEPALIVE],
        WorkingDir: s.workdir,
        Env: Object.entries({
          ...s.env,
          ...(s.egress ? { ...proxyVariables(CONTAINER_PROXY_PORT), ...TRUST_VARIABLES } : {}),
        }).map(([key, value]) => `${key}=${value}`),
        ...(s.user ? { User: s.user } : {}),
        Labels: {
          'tether.managed': '1',
          ...tetherLabels(this.ctx),
        },
        HostConfig: {
          Init: init,
          NetworkMode: s.network,
          Memory: s.memory,
          MemorySwap: s.memory,
          NanoCpus: Math.round(s.cpus * 1e9),
          PidsLimit: s.pids_limit,
          CapDrop: s.cap_drop,
          CapAdd: s.cap_add,
          SecurityOpt: ['no-new-privileges'],
          ReadonlyRootfs: s.read_only,
          Tmpfs: tmpfs,
          Mounts: [
            ...(s.mount_cwd ? [{ Type: 'bind' as const, Source: this.ctx.hostCwd, Target: s.workdir }] : []),
            ...(trust ? containerTrustMounts(trust) : []),
          ],
        },
      });
    } catch (error) {
      // The daemon answered and refused: the settings are wrong (bad network, capability, mount source).
      throw dockerError(error, s.socket_path, `create container ${this.name} from ${s.image}`, 'Environment.Config');
    }
    this.container = container;
    try {
      await container.start();
    } catch (error) {
      await this.close().catch(() => undefined);
      throw dockerError(error, s.socket_path, `start container ${this.name}`, 'Environment.Config');
    }
    try {
      const pid = (await container.inspect()).State.Pid;
      // The container's cgroup, read from here when the daemon is this machine's: which limit acted (commandEnded).
      this.counters = countersOfProcess(pid);
      if (s.egress) {
        this.proxy = await openContainerProxy(pid, this.name, this.ctx);
        if (this.who) this.proxy.attribute(this.who);
      }
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error instanceof EnvironmentError
        ? error
        : dockerError(error, s.socket_path, `inspect container ${this.name}`);
    }
    this.ctx.log.info({ container: this.name, id: container.id, image: s.image }, 'docker container started');
  }

  attribute(who: () => Attribution): void {
    this.who = who;
    this.proxy?.attribute(who);
  }

  /** The container's limit counters before a command (undefined where the daemon's cgroups cannot be read from here). */
  commandStarting(): LimitCounters | undefined {
    return this.counters?.();
  }

  /** A limit of the container that acted during the command, named (never a bare 137). */
  commandEnded(mark: unknown): string[] {
    const before = mark as LimitCounters | undefined;
    if (!before || !this.counters) return [];
    const s = this.settings;
    return limitNotes(
      before,
      this.counters(),
      { pids: s.pids_limit, memory: s.memory, cpus: s.cpus },
      'terminal.docker.limits',
    );
  }

  refusalNote(output: string, startedAt = 0): string | undefined {
    return this.proxy ? networkNote(output, this.proxy.refusalsSince(startedAt), 'the container') : undefined;
  }

  spawn(script: string, opts: SpawnOptions & { stdin?: string } = {}): TransportProcess {
    const container = this.container;
    if (!container) throw new Error('DockerTransport.spawn called before start()');
    const target: ExecTarget = {
      container,
      name: this.name,
      socket: this.settings.socket_path,
      goneReason: () => this.goneReason(),
    };
    return new DockerProcess(target, script, opts);
  }

  async alive(): Promise<boolean> {
    if (!this.container || this.closed) return false;
    return (
      (await this.goneReason().catch((error: unknown) => {
        throw dockerError(error, this.settings.socket_path, `inspect container ${this.name}`);
      })) === undefined
    );
  }

  async close(): Promise<void> {
    this.proxy?.close();
    this.proxy = undefined;
    const container = this.container;
    if (!container || this.closed) return;
    try {
      await container.remove({ force: true, v: true });
    } catch (error) {
      // 404: already removed; 409: a removal is already under way.
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== 404 && status !== 409) {
        throw dockerError(error, this.settings.socket_path, `remove container ${this.name}`);
      }
    }
    this.closed = true;
  }

  private async goneReason(): Promise<'removed' | 'exited' | undefined> {
    if (!this.container) return 'removed';
    try {
      const info = await this.container.inspect();
      return info.State.Running ? undefined : 'exited';
    } catch (error) {
      if (isNotFound(error)) return 'removed';
      throw error;
    }
  }

  private async ensureImage(): Promise<void> {
    const { image, pull, socket_path: socket } = this.settings;
    try {
      await this.docker.getImage(image).inspect();
      return;
    } catch (error) {
      if (!isNotFound(error)) throw dockerError(error, socket, `inspect image ${image}`);
    }
    if (!pull) {
      throw new EnvironmentError(
        'Environment.Config',
        'docker',
        `image ${image} is not in the Docker daemon at ${socket}: build it (tether's test image: scripts/build-test-image.sh) or pull it (docker pull ${image}), or set terminal.docker.pull: true`,
      );
    }
    this.ctx.log.info({ image }, 'pulling docker image');
    try {
      const stream = await this.docker.pull(image);
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
      });
    } catch (error) {
      throw dockerError(error, socket, `pull image ${image}`, 'Environment.Config');
    }
  }
}

/** Removes containers this host's dead workers left: labelled tether.managed and tether.host, with a dead tether.pid. */
async function cleanupDocker(
  settings: DockerSettings,
  ctx: Omit<BackendContext, 'taskId' | 'hostCwd'>,
): Promise<number> {
  const docker = new Docker({ socketPath: settings.socket_path });
  const socket = settings.socket_path;
  const listed = await docker
    .listContainers({
      all: true,
      filters: { label: ['tether.managed=1', `tether.host=${hostLabels()['tether.host']}`] },
    })
    .catch((error: unknown) => {
      throw dockerError(error, socket, 'list containers');
    });
  let removed = 0;
  for (const entry of listed) {
    if (!leftByDeadWorker(entry.Labels, ctx.workerId)) continue;
    const pid = entry.Labels['tether.pid'];
    try {
      await docker.getContainer(entry.Id).remove({ force: true, v: true });
      removed += 1;
      ctx.log.info({ container: entry.Names[0], pid, by: ctx.workerId }, 'removed docker container of a dead worker');
    } catch (error) {
      if (!isNotFound(error)) throw dockerError(error, socket, `remove container ${entry.Id}`);
    }
  }
  return removed;
}

export const dockerBackend: BackendDefinition<DockerSettings> = {
  name: 'docker',
  description: 'one Docker container per task (image, limits and network from terminal.docker)',
  settings: dockerSettings,
  unavailable(settings) {
    if (existsSync(settings.socket_path)) return undefined;
    return `the Docker socket ${settings.socket_path} does not exist: start dockerd, or set DOCKER_HOST or terminal.docker.socket_path`;
  },
  preflight: checkDockerEgress,
  create: (settings, ctx) => new DockerTransport(settings, ctx),
  cleanup: cleanupDocker,
};
