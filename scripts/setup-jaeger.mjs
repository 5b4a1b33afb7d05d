#!/usr/bin/env node
// Set-up step: builds Jaeger all-in-one (github.com/jaegertracing/jaeger/cmd/jaeger) from its Go module into a cache
// outside the clone, for the tracing tests (test/observability.test.ts) and docs/observability.md. The build takes
// many minutes on 2 cores (22 beside the Temporal server's build on a busy machine), so the binary is kept in
// ~/.cache/tether/jaeger-<version>/bin/ (or under $TETHER_CACHE), keyed by version, and reused. Prints the binary's
// path on its last line, for scripts.
//
// A `go install` build has no web UI: Jaeger embeds the UI's assets from a separate JavaScript build (its jaeger-ui
// repository) under the `ui` build tag, and the module holds only a placeholder page. The tests read traces through
// the query HTTP API (/api/traces), which the binary serves in full.
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { executable } from './lib/executable.mjs';

const VERSION = process.env.TETHER_JAEGER_VERSION || '1.75.0';
// Jaeger's go.mod asks for a newer Go than Debian's; the Go command fetches this toolchain from the Go module proxy.
const TOOLCHAIN = 'go1.27.3';
const MODULE = 'github.com/jaegertracing/jaeger';
const cacheRoot = process.env.TETHER_CACHE || join(homedir(), '.cache', 'tether');
const target = join(cacheRoot, `jaeger-${VERSION}`);
const binary = join(target, 'bin', 'jaeger');
const log = (line) => process.stderr.write(`jaeger: ${line}\n`);
// --download: only fetch the module and what cmd/jaeger needs (network-bound; CI runs it beside the other builds).
const downloadOnly = process.argv.includes('--download');

function fail(line) {
  log(line);
  process.exit(1);
}

/** The module's source folder in the Go module cache, downloaded if it is not there. */
function moduleSource(env) {
  mkdirSync(cacheRoot, { recursive: true });
  const download = execFileSync('go', ['mod', 'download', '-json', `${MODULE}@v${VERSION}`], {
    cwd: cacheRoot,
    encoding: 'utf8',
    env,
  });
  return JSON.parse(download).Dir;
}

if (executable(binary)) {
  log(`using ${binary}`);
} else if (downloadOnly) {
  const env = { ...process.env, GOTOOLCHAIN: TOOLCHAIN, GOFLAGS: '-mod=readonly' };
  try {
    // Listing the command's dependencies fetches exactly the modules its build needs.
    execFileSync('go', ['list', '-deps', './cmd/jaeger'], { cwd: moduleSource(env), stdio: 'ignore', env });
  } catch {
    fail('downloading the Jaeger module and its dependencies failed (run without --download to see why)');
  }
  log('module and dependencies downloaded');
  process.exit(0);
} else {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    fail('the Go command is not on PATH; install Go (https://go.dev/dl) or Debian golang-go, then run this again');
  }
  // Build into a scratch folder and rename at the end, so an interrupted build never looks complete.
  const scratch = `${target}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'bin'), { recursive: true });
  log(`building ${MODULE}/cmd/jaeger@v${VERSION} with ${TOOLCHAIN} into ${target} (several minutes)`);
  const started = Date.now();
  const env = { ...process.env, GOTOOLCHAIN: TOOLCHAIN, GOFLAGS: '-mod=readonly' };
  try {
    // `go install module/cmd/jaeger@version` refuses a module whose go.mod has replace directives (Jaeger's has one),
    // so fetch the module source from the Go module proxy and build inside it, as its main module.
    const source = moduleSource(env);
    execFileSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', join(scratch, 'bin', 'jaeger'), './cmd/jaeger'], {
      cwd: source,
      stdio: 'inherit',
      env,
    });
  } catch {
    rmSync(scratch, { recursive: true, force: true });
    fail('the Go build failed (see its output above)');
  }
  mkdirSync(join(target, 'bin'), { recursive: true });
  renameSync(join(scratch, 'bin', 'jaeger'), binary);
  rmSync(scratch, { recursive: true, force: true });
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
}
console.log(binary);
