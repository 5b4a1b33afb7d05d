// The conformance suite on the local backend: inside the bubblewrap sandbox (the default on Linux), and with it off.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeConformance } from './conformance.js';

describeConformance('local (bubblewrap sandbox)', async () => ({
  terminal: { backend: 'local', local: { sandbox: { enabled: true } } },
  hostCwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-conf-local-'))),
  persistentShell: true,
}));

describeConformance('local (sandbox off)', async () => ({
  terminal: { backend: 'local', local: { sandbox: 'off' } },
  hostCwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-conf-local-off-'))),
  persistentShell: true,
}));
