// Vitest global setup: one real Temporal dev server (in memory, loopback, free port, tether's search attributes)
// for the test run.
import type { TestProject } from 'vitest/node';
import { freePort, startDevServer } from '../../src/temporal/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // With tether's search attributes registered, as the dev server tether starts has them.
  const server = await startDevServer({ port: await freePort(), headless: true, searchAttributes: true });
  project.provide('temporalAddress', server.address);
  return () => server.stop();
}
