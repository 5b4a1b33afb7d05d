// Bundles the workflow entry as the worker does and checks what it reaches: src/workflows, src/common and
// allowed packages only, so no worker folder, Node built-in or native module slips into workflow code.
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../src/worker.js';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type WebpackPlugin = NonNullable<WebpackConfig['plugins']>[number];
type Compiler = Parameters<Extract<WebpackPlugin, (compiler: never) => unknown>>[0];

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Packages workflow code may reach: Temporal's workflow side and what it needs (ms, long, nexus-rpc), and zod. */
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow', '@temporalio/common', 'zod', 'long', 'ms', 'nexus-rpc']);

/**
 * Pure modules outside those folders that workflow code may use (the visibility memo renders approval text the way
 * every channel does: escapes, look-alikes, counted blank runs, redacted spans).
 */
const ALLOWED_FILES = new Set([
  ['src', 'approval', 'visible-text.ts'].join(sep),
  ['src', 'approval', 'approval-text.ts'].join(sep),
  ['src', 'approval', 'approval-redact.ts'].join(sep),
  ['src', 'detector', 'engine', 'lookalikes.ts'].join(sep),
  ['src', 'environments', 'redact.ts'].join(sep),
]);

/** The files webpack put into the workflow bundle, relative to the project. */
async function bundledFiles(): Promise<string[]> {
  const files = new Set<string>();
  const recorder = (compiler: Compiler): void => {
    compiler.hooks.compilation.tap('tether-bundle-contents', (compilation) => {
      compilation.hooks.finishModules.tap('tether-bundle-contents', (modules) => {
        for (const m of modules) {
          const resource = (m as { resource?: string }).resource;
          if (resource) files.add(relative(root, resource.split('?')[0]!));
        }
      });
    });
  };
  await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger: undefined,
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), recorder] }),
  });
  return [...files].sort();
}

/** The npm package a bundled file belongs to (`@scope/name` or `name`), or undefined outside node_modules. */
function packageOf(file: string): string | undefined {
  const parts = file.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const name = parts[at + 1] ?? '';
  return name.startsWith('@') ? `${name}/${parts[at + 2] ?? ''}` : name;
}

describe('workflow bundle', () => {
  it('reaches nothing outside src/workflows, src/common and the allowed packages', async () => {
    const files = await bundledFiles();
    const own = files.filter((f) => packageOf(f) === undefined && !f.startsWith('..') && !f.startsWith(sep));
    // The bundle really was inspected: the agent workflow and a shared type module are in it.
    expect(own).toContain(['src', 'workflows', 'agent-workflow.ts'].join(sep));
    expect(own.some((f) => f.startsWith(['src', 'common', ''].join(sep)))).toBe(true);

    const outsideSrc = own.filter(
      (f) =>
        !f.startsWith(['src', 'workflows', ''].join(sep)) &&
        !f.startsWith(['src', 'common', ''].join(sep)) &&
        !ALLOWED_FILES.has(f),
    );
    expect(outsideSrc).toEqual([]);
    const packages = new Set(files.map(packageOf).filter((p): p is string => p !== undefined));
    expect([...packages].filter((p) => !ALLOWED_PACKAGES.has(p))).toEqual([]);
  }, 120_000);
});
