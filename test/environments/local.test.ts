// The conformance suite on the local backend.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeConformance } from './conformance.js';

describeConformance('local', async () => ({
  terminal: { backend: 'local' },
  hostCwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-conf-local-'))),
}));
