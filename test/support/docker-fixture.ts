// Test support for the Docker backend: is a daemon usable here, the locally built test image, a transport on it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import type { BackendContext } from '../../src/environments/backend-types.js';
import { defaultSocketPath, dockerSettings } from '../../src/environments/backends/docker/settings.js';
import { DockerTransport } from '../../src/environments/backends/docker/transport.js';
import { recordingLogger } from './recording-logger.js';

export const TEST_IMAGE = 'tether-test:latest';
const SCRIPT = fileURLToPath(new URL('../../scripts/build-test-image.sh', import.meta.url));

/** Undefined when Docker can run the tests here, else why not (the reason a test skips with). */
export async function dockerAvailable(): Promise<string | undefined> {
  const socket = defaultSocketPath();
  if (!existsSync(socket)) return `no Docker socket at ${socket} (start dockerd or set DOCKER_HOST)`;
  if (!existsSync('/bin/busybox')) return 'busybox-static is not installed (the test image is built from it)';
  try {
    await new Docker({ socketPath: socket, timeout: 5_000 }).ping();
    return undefined;
  } catch (error) {
    return `the Docker daemon at ${socket} does not answer: ${(error as Error).message}`;
  }
}

let built: Promise<string> | undefined;

/** Builds (or finds up to date) the test image, once per test process; resolves with its tag. */
export function ensureTestImage(): Promise<string> {
  built ??= promisify(execFile)('bash', [SCRIPT, TEST_IMAGE]).then(() => TEST_IMAGE);
  return built;
}

/** A transport on the test image; `settings` are raw `terminal.docker` keys, parsed like config. */
export function makeDockerTransport(
  taskId: string,
  settings: Record<string, unknown> = {},
  ctx: Partial<BackendContext> = {},
): DockerTransport {
  return new DockerTransport(dockerSettings.parse({ image: TEST_IMAGE, ...settings }), {
    taskId,
    hostCwd: process.cwd(),
    workerId: `test-worker-${process.pid}`,
    log: recordingLogger(),
    ...ctx,
  });
}
