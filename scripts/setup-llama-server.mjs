#!/usr/bin/env node
// Set-up step: builds llama-cpp-python's OpenAI-compatible server (PyPI, compiled from source) into a cache outside the clone.
// The compatibility test (test/model-server-compat.test.ts) starts this server on the demonstration model's GGUF file.
// Building takes about 7 minutes on 2 cores, so the result is kept in ~/.cache/tether/ (or $TETHER_CACHE) and reused.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pipInstallTarget } from './lib/pip.mjs';

export const LLAMA_SERVER_VERSION = '0.3.36';
const cacheRoot = process.env.TETHER_CACHE || join(homedir(), '.cache', 'tether');
const target = join(cacheRoot, `llama-cpp-python-${LLAMA_SERVER_VERSION}`);
const marker = join(target, '.complete');

if (existsSync(marker)) {
  console.log(`llama server: using ${target}`);
  process.exit(0);
}
if (process.env.TETHER_SKIP_LLAMA_SERVER === '1') {
  console.log('llama server: skipped (TETHER_SKIP_LLAMA_SERVER=1); the real-server compatibility test will be skipped');
  process.exit(0);
}
// Build into a scratch folder and rename at the end, so an interrupted build never looks complete.
const scratch = `${target}.partial-${process.pid}`;
rmSync(scratch, { recursive: true, force: true });
mkdirSync(cacheRoot, { recursive: true });
console.log(
  `llama server: building llama-cpp-python[server]==${LLAMA_SERVER_VERSION} from PyPI into ${target} (about 7 minutes on 2 cores)`,
);
const started = Date.now();
try {
  pipInstallTarget(`llama-cpp-python[server]==${LLAMA_SERVER_VERSION}`, scratch, {
    deps: true,
    noCache: true,
    // CPU only, no examples or tests: the server needs the library alone.
    env: {
      CMAKE_ARGS: '-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF',
      CMAKE_BUILD_PARALLEL_LEVEL: process.env.CMAKE_BUILD_PARALLEL_LEVEL || '2',
    },
  });
} catch {
  rmSync(scratch, { recursive: true, force: true });
  console.error(
    'llama server: the build failed (see pip output above); it needs python3 with pip, cmake and a C++ compiler',
  );
  process.exit(1);
}
writeFileSync(join(scratch, '.complete'), `${new Date().toISOString()}\n`);
rmSync(target, { recursive: true, force: true });
renameSync(scratch, target);
console.log(`llama server: built in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
