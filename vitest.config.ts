// Test runner configuration: colocated unit tests in src/, integration tests in test/.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // test/cluster/ needs the real Temporal server on PostgreSQL: `npm run test:cluster` (vitest.cluster.config.ts).
    exclude: ['test/fixtures/**', 'test/cluster/**', 'node_modules/**', 'dist/**'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['./test/support/temporal-global-setup.ts'],
    // Logs and state of code under test stay out of the developer's own ~/.tether.
    env: { TETHER_HOME: join(tmpdir(), `tether-test-home-${process.pid}`) },
  },
});
