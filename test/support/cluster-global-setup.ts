// Vitest global setup for `npm run test:cluster`: the real Temporal server on PostgreSQL (scripts/cluster.sh), or the
// cluster named by TETHER_CLUSTER_ADDRESS. Tests read its address with inject('temporalAddress'), as on the dev server.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const script = fileURLToPath(new URL('../../scripts/cluster.sh', import.meta.url));
const cli = fileURLToPath(new URL('../../dist/client.js', import.meta.url));

/** `tether cluster setup` on the namespace, as a user does once per cluster: workers refuse a namespace without it. */
function clusterSetup(address: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'node',
      [cli, 'cluster', 'setup'],
      {
        timeout: 120_000,
        env: { ...process.env, TEMPORAL_ADDRESS: address, TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-cluster-')) },
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

function cluster(command: 'start' | 'stop' | 'status'): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', [script, command], { timeout: 20 * 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.TETHER_CLUSTER_ADDRESS?.trim();
  if (given) {
    const setup = await clusterSetup(given);
    if (setup.code !== 0) throw new Error(`tether cluster setup failed:\n${setup.output}`);
    project.provide('temporalAddress', given);
    return undefined;
  }
  // A cluster someone started is theirs: it is used and left running. One started here is stopped afterwards.
  const wasRunning = (await cluster('status')).code === 0;
  const started = await cluster('start');
  if (started.code !== 0) throw new Error(`scripts/cluster.sh start failed:\n${started.output}`);
  const address = /TEMPORAL_ADDRESS=(\S+)/.exec(started.output)?.[1];
  if (!address) throw new Error(`scripts/cluster.sh start did not name the address:\n${started.output}`);
  const setup = await clusterSetup(address);
  if (setup.code !== 0) throw new Error(`tether cluster setup failed:\n${setup.output}`);
  project.provide('temporalAddress', address);
  if (wasRunning) return undefined;
  return async () => {
    const stopped = await cluster('stop');
    if (stopped.code !== 0) throw new Error(`scripts/cluster.sh stop failed:\n${stopped.output}`);
  };
}
