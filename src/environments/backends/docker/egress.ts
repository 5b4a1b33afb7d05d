// terminal.docker.egress: a container on `network: none` reaches the outside through the worker's egress proxy, the
// same gate and policy as the local sandbox's (terminal.local.sandbox.egress). The proxy's port is a socket the worker
// holds inside the container's network namespace, opened there with nsenter: that takes root. Worker-only.
import { existsSync } from 'node:fs';
import { TetherError } from '../../../common/errors.js';
import type { BackendContext } from '../../backend-types.js';
import { egressGate } from '../../egress/gate.js';
import { TaskProxy } from '../../egress/task-proxy.js';
import { SANDBOX_BUNDLE, SANDBOX_CA, type Trust } from '../../egress/trust.js';
import { EnvironmentError } from '../../types.js';
import type { DockerSettings } from './settings.js';

/** The proxy's port inside every container: fixed, because a container's variables are set before it starts. */
export const CONTAINER_PROXY_PORT = 3128;

/** Where images keep their CA bundle (Debian, Ubuntu and Alpine; Fedora and RHEL): the proxy's bundle goes over them. */
const IMAGE_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

/** Read-only mounts of the worker's trust files (trust.ts): at /run/tether and over the image's usual bundles. */
export function containerTrustMounts(
  trust: Pick<Trust, 'bundleFile' | 'caFile'>,
): { Type: 'bind'; Source: string; Target: string; ReadOnly: true }[] {
  const bind = (Source: string, Target: string) => ({ Type: 'bind' as const, Source, Target, ReadOnly: true as const });
  return [
    bind(trust.bundleFile, SANDBOX_BUNDLE),
    bind(trust.caFile, SANDBOX_CA),
    ...IMAGE_BUNDLES.map((p) => bind(trust.bundleFile, p)),
  ];
}

/** Why egress cannot work with these settings on this machine (a start-up error naming the setting), or undefined. */
export function dockerEgressProblem(s: DockerSettings, uid = process.getuid?.()): string | undefined {
  if (!s.egress) return undefined;
  if (s.network !== 'none')
    return `terminal.docker.egress needs terminal.docker.network: none (it is ${s.network}): the proxy is then the container's only way out`;
  if (uid !== 0)
    return "terminal.docker.egress: the worker opens the proxy's port inside each container's network namespace (nsenter), which needs root; run the worker as root, or set terminal.docker.egress: false (no network at all)";
  if (!['/usr/bin/nsenter', '/bin/nsenter', '/usr/sbin/nsenter', '/sbin/nsenter'].some((p) => existsSync(p)))
    return "terminal.docker.egress: nsenter not found; install the package 'util-linux', or set terminal.docker.egress: false";
  return undefined;
}

export function checkDockerEgress(s: DockerSettings): string[] {
  const problem = dockerEgressProblem(s);
  if (problem) throw new TetherError('Config.Invalid', problem, false);
  return [];
}

/**
 * The proxy for a started container whose init has host pid `pid`: the Docker daemon must run on this machine (the
 * pid is read from it), which the socket setting already implies.
 */
export async function openContainerProxy(
  pid: number | undefined,
  container: string,
  ctx: Pick<BackendContext, 'taskId' | 'log' | 'workflowId'>,
): Promise<TaskProxy> {
  const ns = `/proc/${pid ?? 0}/ns/net`;
  if (!pid || !existsSync(ns))
    throw new EnvironmentError(
      'Environment.Config',
      'docker',
      `terminal.docker.egress: container ${container}'s process (${String(pid)}) is not on this machine; the Docker daemon must run here`,
    );
  try {
    return await TaskProxy.open(
      egressGate(),
      (argv) => ['nsenter', `--net=${ns}`, '--', ...argv],
      { taskId: ctx.taskId, backend: 'docker', workflowId: ctx.workflowId },
      ctx.log,
      CONTAINER_PROXY_PORT,
    );
  } catch (err) {
    throw new EnvironmentError('Environment.Unreachable', 'docker', (err as Error).message);
  }
}
