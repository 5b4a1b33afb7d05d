// The workflow bundle made once by `npm run build`, checked against the files it was made from before a worker uses
// it: a worker then starts without running webpack, which takes seconds of CPU and, on a busy machine, slowed the
// worker taking over a crashed one's runs. Worker-only.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions, type Logger, type WorkflowBundleOption } from '@temporalio/worker';
import { workflowCodeSha256 } from './build-id.js';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type WebpackPlugin = NonNullable<WebpackConfig['plugins']>[number];
type Compiler = Parameters<Extract<WebpackPlugin, (compiler: never) => unknown>>[0];

const CODE = 'workflow-bundle.js';
const MANIFEST = 'workflow-bundle.json';

/**
 * What the bundle was made from: every file webpack put in it, by path relative to the bundle's folder, with its hash;
 * and the code's own digest and size, so a worker names its build without hashing the code (absent in older builds).
 */
interface Manifest {
  entry: string;
  files: Record<string, string>;
  code?: { sha256: string; bytes: number };
}

/**
 * Where `npm run build` puts the bundle: dist/workflow-bundle/ beside the compiled code (none when run from source);
 * the traced one (with the OpenTelemetry workflow interceptors, src/observability/workflow-interceptors.ts) in
 * dist/workflow-bundle-otel/.
 */
export function prebuiltBundleDir(traced = false): string {
  return fileURLToPath(new URL(traced ? '../workflow-bundle-otel/' : '../workflow-bundle/', import.meta.url));
}

/** Webpack's progress lines are noise in a build; its warnings and errors are not. */
const quiet: Logger = {
  log: (level, message) => {
    if (level === 'WARN' || level === 'ERROR') process.stderr.write(`workflow bundle: ${message}\n`);
  },
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => process.stderr.write(`workflow bundle: ${message}\n`),
  error: (message) => process.stderr.write(`workflow bundle: ${message}\n`),
};

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Bundles the workflows at `entry` into `dir`, with the manifest a worker checks before using the bundle;
 * `interceptorModules` are bundled with them (the traced bundle's).
 */
export async function writePrebuiltBundle(
  entry: string,
  dir: string = prebuiltBundleDir(),
  interceptorModules?: string[],
): Promise<{ bytes: number; files: number }> {
  const files = new Set<string>();
  // Records what webpack read, so a changed source (ours or a package's) is noticed by the worker.
  const recorder = (compiler: Compiler): void => {
    compiler.hooks.compilation.tap('tether-prebuilt-bundle', (compilation) => {
      compilation.hooks.finishModules.tap('tether-prebuilt-bundle', (modules) => {
        for (const m of modules) {
          const resource = (m as { resource?: string }).resource?.split('?')[0];
          if (resource && isAbsolute(resource) && existsSync(resource)) files.add(resource);
        }
      });
    });
  };
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
    ...(interceptorModules ? { workflowInterceptorModules: interceptorModules } : {}),
    logger: quiet,
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), recorder] }),
  });
  if (files.size === 0) throw new Error('workflow bundle: webpack reported no source files');
  const manifest: Manifest = {
    entry: relative(dir, entry),
    files: {},
    code: { sha256: workflowCodeSha256(code), bytes: Buffer.byteLength(code) },
  };
  for (const f of [...files].sort()) manifest.files[relative(dir, f)] = sha256(f);
  mkdirSync(dir, { recursive: true });
  // Code first, manifest last: a build stopped half-way leaves no manifest that vouches for the wrong code.
  writeFileSync(join(dir, `${CODE}.tmp`), code);
  renameSync(join(dir, `${CODE}.tmp`), join(dir, CODE));
  writeFileSync(join(dir, `${MANIFEST}.tmp`), JSON.stringify(manifest, null, 1));
  renameSync(join(dir, `${MANIFEST}.tmp`), join(dir, MANIFEST));
  return { bytes: Buffer.byteLength(code), files: files.size };
}

/**
 * The prebuilt bundle for the workflows at `entry`, if it was made from exactly the files now on disk; otherwise
 * why not (the worker then bundles at start, as before). Reading and hashing its ~150 files takes milliseconds.
 * `sha256` is the code's digest from the manifest, given only while the code file still has the size recorded with it.
 */
export function prebuiltBundle(
  entry: string,
  dir: string = prebuiltBundleDir(),
):
  | { bundle: WorkflowBundleOption; sha256?: string; reason?: undefined }
  | { bundle?: undefined; sha256?: undefined; reason: string } {
  const manifestFile = join(dir, MANIFEST);
  if (!existsSync(manifestFile)) return { reason: `no prebuilt workflow bundle in ${dir} (npm run build makes it)` };
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  } catch (err) {
    return { reason: `unreadable ${manifestFile}: ${(err as Error).message}` };
  }
  const madeFrom = resolve(dir, manifest.entry ?? '');
  if (madeFrom !== resolve(entry))
    return { reason: `the prebuilt workflow bundle was made from ${madeFrom}, not ${entry}` };
  const files = Object.entries(manifest.files ?? {});
  if (files.length === 0) return { reason: `${manifestFile} lists no source files` };
  for (const [file, hash] of files) {
    const path = resolve(dir, file);
    if (!existsSync(path) || sha256(path) !== hash)
      return { reason: `${relative(dirname(dir), path)} changed since the workflow bundle was built` };
  }
  const codePath = join(dir, CODE);
  if (!existsSync(codePath)) return { reason: `${codePath} is missing` };
  // A digest that does not fit the file (an older build's manifest, an edited file) is dropped: the code is hashed.
  const recorded = manifest.code;
  const fits =
    typeof recorded?.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(recorded.sha256) &&
    statSync(codePath).size === recorded.bytes;
  const digest = fits ? recorded.sha256 : undefined;
  return { bundle: { codePath }, sha256: digest };
}
