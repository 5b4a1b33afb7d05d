#!/usr/bin/env node
// Set-up step: builds the real Temporal server and its SQL schema tool from the Go module into a cache outside the clone.
// scripts/cluster.sh runs them on PostgreSQL for `npm run test:cluster`. The build takes about 7 minutes on 2 cores,
// so the result is kept in ~/.cache/tether/temporal-server-<version>/ (or under $TETHER_CACHE), keyed by version, and
// reused. Prints the directory it made or found on its last line, for scripts.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { executable } from './lib/executable.mjs';

const VERSION = process.env.TETHER_TEMPORAL_SERVER_VERSION || '1.32.2';
// The server's go.mod asks for this toolchain; the Go command fetches it from the Go module proxy when it is missing.
const TOOLCHAIN = 'go1.27.3';
const MODULE = 'go.temporal.io/server';
const cacheRoot = process.env.TETHER_CACHE || join(homedir(), '.cache', 'tether');
const target = join(cacheRoot, `temporal-server-${VERSION}`);
const log = (line) => process.stderr.write(`temporal server: ${line}\n`);

function fail(line) {
  log(line);
  process.exit(1);
}

function go(args, opts = {}) {
  return execFileSync('go', args, {
    encoding: 'utf8',
    ...opts,
    env: { ...process.env, GOTOOLCHAIN: TOOLCHAIN, ...opts.env },
  });
}

try {
  execFileSync('go', ['version'], { stdio: 'ignore' });
} catch {
  if (!(executable(join(target, 'bin', 'server')) && existsSync(join(target, 'schema'))))
    fail('the Go command is not on PATH; install Go (https://go.dev/dl) or Debian golang-go, then run this again');
}

const binaries = ['server', 'sql'];
if (binaries.every((b) => executable(join(target, 'bin', b)))) {
  log(`using ${join(target, 'bin')}`);
} else {
  // Build into a scratch folder and rename at the end, so an interrupted build never looks complete.
  const scratch = `${target}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'bin'), { recursive: true });
  log(`building ${MODULE}@v${VERSION} (cmd/server, cmd/tools/sql) with ${TOOLCHAIN} into ${target} (about 7 minutes)`);
  const started = Date.now();
  try {
    go(['install', `${MODULE}/cmd/server@v${VERSION}`, `${MODULE}/cmd/tools/sql@v${VERSION}`], {
      stdio: 'inherit',
      env: { GOBIN: join(scratch, 'bin') },
    });
  } catch {
    rmSync(scratch, { recursive: true, force: true });
    fail('the Go build failed (see its output above)');
  }
  mkdirSync(join(target, 'bin'), { recursive: true });
  for (const b of binaries) renameSync(join(scratch, 'bin', b), join(target, 'bin', b));
  rmSync(scratch, { recursive: true, force: true });
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
}

// The schema files ship in the module source, not in the binaries: keep a copy beside them, so a cleaned Go module
// cache does not break a cluster start later.
const schema = join(target, 'schema', 'postgresql', 'v12');
if (!existsSync(join(schema, 'temporal', 'versioned')) || !existsSync(join(schema, 'visibility', 'versioned'))) {
  let dir;
  mkdirSync(cacheRoot, { recursive: true });
  try {
    dir = JSON.parse(go(['mod', 'download', '-json', `${MODULE}@v${VERSION}`], { cwd: cacheRoot })).Dir;
  } catch (err) {
    fail(
      `cannot fetch the ${MODULE}@v${VERSION} module source for its SQL schema: ${String(err.message).split('\n')[0]}`,
    );
  }
  rmSync(join(target, 'schema'), { recursive: true, force: true });
  cpSync(join(dir, 'schema', 'postgresql', 'v12'), schema, { recursive: true });
  log(`copied the PostgreSQL schema to ${schema}`);
}
console.log(target);
