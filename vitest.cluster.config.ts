// Test runner configuration for `npm run test:cluster`: end-to-end flows against the real Temporal server on PostgreSQL.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every file in test/cluster/ runs here (and only here: vitest.config.ts leaves the folder out).
    include: ['test/cluster/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Limits for a loaded 2-core machine (several worker processes and the server at once), not speed assertions.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // The cluster is one shared server: files run one after another, so their workers do not compete for 2 cores.
    fileParallelism: false,
    globalSetup: ['./test/support/cluster-global-setup.ts'],
    env: { TETHER_HOME: join(tmpdir(), `tether-cluster-test-home-${process.pid}`) },
  },
});
