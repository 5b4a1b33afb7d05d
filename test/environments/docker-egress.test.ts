// terminal.docker.egress on a real dockerd: a container on network none reaches allowed hosts through the worker's
// egress proxy (on its own loopback) and nothing else; a raw connection has no route. The outside is a loopback
// stand-in named by egress.resolve, as everywhere in tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { configureEnvironments, environmentManager } from '../../src/environments/current.js';
import { dockerSettings } from '../../src/environments/backends/docker/settings.js';
import { dockerEgressProblem } from '../../src/environments/backends/docker/egress.js';
import { registry } from '../../src/registry/index.js';
import '../../src/tools/terminal.js';
import { dockerAvailable, ensureTestImage } from '../support/docker-fixture.js';
import { recordingLogger } from '../support/recording-logger.js';
import { makeCertificate, resolveAll, startStandIn, type StandIn } from '../support/egress-stand-in.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const unavailable = await dockerAvailable();
const notRoot = process.getuid?.() !== 0 ? 'the worker must run as root to open the proxy in a container' : undefined;
let stand: StandIn;
/** An HTTPS stand-in with a private CA the proxy trusts upstream (egress.upstream_ca_file). */
let secure: StandIn;
let log: ReturnType<typeof recordingLogger>;

type Result = { exit_code?: number; output?: string; sandbox?: string };
const run = async (taskId: string, command: string): Promise<Result> =>
  JSON.parse(
    await registry.dispatch('terminal', JSON.stringify({ command }), { taskId, cwd: process.cwd() }),
  ) as Result;

describe('terminal.docker.egress', () => {
  it('is refused at start with a line naming the setting when it cannot work', () => {
    expect(dockerEgressProblem(dockerSettings.parse({ egress: true, network: 'bridge' }), 0)).toMatch(
      /^terminal\.docker\.egress needs terminal\.docker\.network: none \(it is bridge\)/,
    );
    expect(dockerEgressProblem(dockerSettings.parse({ egress: true }), 1000)).toMatch(
      /^terminal\.docker\.egress: .*needs root; run the worker as root, or set terminal\.docker\.egress: false/,
    );
    expect(dockerEgressProblem(dockerSettings.parse({}), 1000)).toBeUndefined();
  });

  describe.skipIf(unavailable ?? notRoot)('on a real daemon', () => {
    beforeAll(async () => {
      stand = await startStandIn();
      const certs = makeCertificate(mkdtempSync(join(tmpdir(), 'tether-docker-egress-')));
      secure = await startStandIn(undefined, certs);
      log = recordingLogger();
      await configureEnvironments(
        parseConfig({
          terminal: {
            backend: 'docker',
            docker: { image: await ensureTestImage(), egress: true },
            local: {
              sandbox: {
                egress: {
                  allow: ['plain.example.test', { host: 'registry.example.test', access: 'read' }],
                  upstream_ca_file: certs.cert,
                  resolve: {
                    ...resolveAll(['plain.example.test', 'other.example.test'], stand),
                    ...resolveAll(['registry.example.test'], secure),
                  },
                },
              },
            },
          },
        }).terminal,
        log,
      );
    }, 120_000);
    afterAll(async () => {
      await environmentManager().closeAll();
      await stand?.close();
      await secure?.close();
    });

    it('an allowed host through the proxy; another refused, saying why; a raw socket has no route', async () => {
      const t = `docker-egress-${process.pid}`;
      const r = await run(t, 'wget -q -O - http://plain.example.test/in-container');
      expect(r.output).toBe('hello from plain.example.test/in-container\n');
      const refused = await run(t, 'wget -q -O - http://other.example.test/ 2>&1');
      expect(refused.exit_code).not.toBe(0);
      expect(refused.sandbox).toMatch(
        /egress proxy refused: other\.example\.test:80 is not in terminal\.local\.sandbox\.egress\.allow/,
      );
      const raw = await run(t, 'nc -w 3 192.0.2.1 80 </dev/null 2>&1; exit 1');
      expect(raw.output).toMatch(/Network is unreachable|can't connect/);
      expect(stand.hits('other.example.test')).toBe(0);
      expect(log.lines.some((l) => l.msg === 'egress' && (l.obj as { backend?: string }).backend === 'docker')).toBe(
        true,
      );
    }, 120_000);

    it("HTTPS is read in the container too: the proxy's CA is mounted and named, a read passes, a write is refused", async () => {
      const t = `docker-egress-tls-${process.pid}`;
      const files = await run(
        t,
        'echo "$SSL_CERT_FILE $NODE_EXTRA_CA_CERTS"; grep -c "BEGIN CERTIFICATE" /run/tether/egress-ca.pem; ' +
          'cmp -s /run/tether/ca-bundle.pem /etc/ssl/certs/ca-certificates.crt && echo same; grep -c "PRIVATE KEY" /run/tether/*',
      );
      expect(files.output).toBe(
        '/run/tether/ca-bundle.pem /run/tether/egress-ca.pem\n1\nsame\n/run/tether/ca-bundle.pem:0\n/run/tether/egress-ca.pem:0\n',
      );
      const read = await run(t, 'wget -q -O - https://registry.example.test/in-container 2>&1');
      expect(read.output).toBe('hello from registry.example.test/in-container\n');
      const write = await run(t, 'wget -q -O - --post-data x=1 https://registry.example.test/upload 2>&1');
      expect(write.exit_code).not.toBe(0);
      // busybox's wget sends its --post-data as a GET with a body: a write all the same.
      expect(write.sandbox).toMatch(
        /(GET|POST) https:\/\/registry\.example\.test\/upload: registry\.example\.test:443 is allowed for reading only/,
      );
      expect(secure.seen.filter((x) => x.url === '/upload')).toEqual([]);
    }, 120_000);
  });
});
