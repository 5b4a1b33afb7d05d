// Types of the local ESLint plugin scripts/eslint-folder-layers.mjs, for the test that lints probes with it.
import type { ESLint } from 'eslint';

export const folderLayers: ESLint.Plugin;
