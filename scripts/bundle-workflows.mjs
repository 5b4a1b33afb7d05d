#!/usr/bin/env node
// Build step after tsc: bundles the compiled workflows once into dist/workflow-bundle/ (with a manifest of the files it
// was made from), so `tether worker` starts without running webpack; and once more with the OpenTelemetry workflow
// interceptors into dist/workflow-bundle-otel/, the bundle a worker uses when it exports traces.
import { fileURLToPath } from 'node:url';

const { writePrebuiltBundle, prebuiltBundleDir } = await import('../dist/temporal/prebuilt-bundle.js');
const entry = fileURLToPath(new URL('../dist/workflows/index.js', import.meta.url));
const interceptors = fileURLToPath(new URL('../dist/observability/workflow-interceptors.js', import.meta.url));
for (const traced of [false, true]) {
  const started = Date.now();
  const { bytes, files } = await writePrebuiltBundle(
    entry,
    prebuiltBundleDir(traced),
    traced ? [interceptors] : undefined,
  );
  process.stdout.write(
    `workflow bundle${traced ? ' (traced)' : ''}: ${(bytes / 1e6).toFixed(1)} MB from ${files} files in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
