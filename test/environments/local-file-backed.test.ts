// The conformance suite on the local machine through a transport that, like the cloud sandboxes, cannot stream
// standard input and has no PTY: background processes then live in files inside the environment.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/environments/backends/local/transport.js';
import { registerEnvironmentProvider } from '../../src/environments/providers.js';
import { describeConformance } from './conformance.js';

class NonStreamingLocal extends LocalTransport {
  override readonly capabilities = { streamsStdin: false, pty: false };
}

registerEnvironmentProvider('local-files', ({ cwd }) => new NonStreamingLocal(cwd), 'local-file-backed.test.ts');

describeConformance('local without streaming (file-backed processes)', async () => ({
  terminal: { backend: 'local-files' },
  hostCwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-conf-files-'))),
}));
