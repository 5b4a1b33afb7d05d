// The shared transport cases on the local backend (this machine, in a temporary working directory).
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/environments/backends/local/transport.js';
import { describeTransportCases } from './transport-cases.js';

describeTransportCases('local', {
  fresh: async () => {
    const t = new LocalTransport(realpathSync(mkdtempSync(join(tmpdir(), 'tether-local-transport-'))));
    await t.start();
    return t;
  },
  closeEnds: false,
});
