// The conformance suite on the Docker backend: a real dockerd (started by .ci/run) and a test image built locally.
import Docker from 'dockerode';
import { defaultSocketPath } from '../../src/environments/backends/docker/settings.js';
import { dockerAvailable, ensureTestImage } from '../support/docker-fixture.js';
import { describeConformance } from './conformance.js';

describeConformance('docker', async () => {
  const why = await dockerAvailable();
  if (why) return why;
  const image = await ensureTestImage();
  const docker = new Docker({ socketPath: defaultSocketPath() });
  return {
    terminal: { backend: 'docker', docker: { image } },
    hostCwd: process.cwd(),
    recreatedAfterBreak: true,
    persistentShell: true,
    breakEnvironment: async (taskId) => {
      const found = await docker.listContainers({ filters: { label: [`tether.task=${taskId}`] } });
      if (found.length !== 1) throw new Error(`expected one container for ${taskId}, found ${found.length}`);
      await docker.getContainer(found[0]!.Id).kill();
    },
  };
});
