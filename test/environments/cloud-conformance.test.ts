// The conformance suite on the Daytona and Vercel Sandbox backends, each through its real SDK against a fake API on
// loopback (doubles: the services cannot be reached from here). Neither streams standard input, so background
// processes take the file-backed path.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerEnvironmentProvider } from '../../src/environments/providers.js';
import { VercelTransport } from '../../src/environments/backends/vercel/transport.js';
import { vercelSettings } from '../../src/environments/backends/vercel/settings.js';
import { startFakeDaytona } from '../support/fake-daytona-server.js';
import { startFakeVercel } from '../support/fake-vercel-server.js';
import { describeConformance } from './conformance.js';

describeConformance('daytona (double: fake Daytona API on loopback)', async () => {
  const fake = await startFakeDaytona();
  process.env.DAYTONA_API_KEY = fake.apiKey;
  const workdir = mkdtempSync(join(tmpdir(), 'tether-daytona-conf-'));
  return {
    terminal: { backend: 'daytona', daytona: { api_url: fake.apiUrl, workdir } },
    hostCwd: workdir,
    recreatedAfterBreak: true,
    breakEnvironment: async (taskId) => {
      const found = [...fake.sandboxes.values()].filter((s) => s.labels['tether.task'] === taskId);
      if (found.length !== 1) throw new Error(`expected one sandbox for ${taskId}, found ${found.length}`);
      fake.stopSandbox(found[0]!.id);
    },
    stop: () => fake.close(),
  };
});

describeConformance('vercel_sandbox (double: fake Vercel API on loopback)', async () => {
  const fake = await startFakeVercel();
  const workdir = mkdtempSync(join(tmpdir(), 'tether-vercel-conf-'));
  const env = { VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: fake.projectId };
  // The SDK's API address is not a setting: a provider hands the transport the fake's address.
  registerEnvironmentProvider(
    'vercel-fake',
    ({ taskId }) =>
      new VercelTransport(
        vercelSettings.parse({ workdir }),
        { taskId, workerId: 'conformance' },
        { apiUrl: fake.apiUrl, env },
      ),
    'cloud-conformance.test.ts',
  );
  return {
    terminal: { backend: 'vercel-fake' },
    hostCwd: workdir,
    recreatedAfterBreak: true,
    breakEnvironment: async (taskId) => {
      const found = [...fake.sandboxes.values()].filter(
        (s) => s.tags['tether.task'] === taskId && s.status === 'running',
      );
      if (found.length !== 1) throw new Error(`expected one sandbox for ${taskId}, found ${found.length}`);
      fake.stopSandbox(found[0]!.name);
    },
    stop: () => fake.close(),
  };
});
