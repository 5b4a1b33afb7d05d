#!/usr/bin/env node
// Build step after tsc: bundles the compiled workflows once into dist/workflow-bundle/ (with a manifest of the files it
// was made from), so `tether worker` starts without running webpack.
import { fileURLToPath } from 'node:url';

const { writePrebuiltBundle } = await import('../dist/temporal/prebuilt-bundle.js');
const entry = fileURLToPath(new URL('../dist/workflows/index.js', import.meta.url));
const started = Date.now();
const { bytes, files } = await writePrebuiltBundle(entry);
process.stdout.write(
  `workflow bundle: ${(bytes / 1e6).toFixed(1)} MB from ${files} files in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
