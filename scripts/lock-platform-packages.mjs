#!/usr/bin/env node
// Adds lock entries for node-llama-cpp's platform packages that the registry reachable here does not serve
// (macOS, Windows, riscv64). npm install leaves them out of package-lock.json, and npm ci then refuses the
// lock; with these entries npm ci skips them as packages for other platforms, as it would anyway.
// Run after any `npm install` that rewrites package-lock.json.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const owner = lock.packages['node_modules/node-llama-cpp'];
if (!owner) {
  console.log('node-llama-cpp is not in the lock file: nothing to do');
  process.exit(0);
}
const platform = {
  'linux-riscv64': ['linux', 'riscv64'],
  'mac-arm64-metal': ['darwin', 'arm64'],
  'mac-x64': ['darwin', 'x64'],
  'win-arm64': ['win32', 'arm64'],
  'win-x64': ['win32', 'x64'],
  'win-x64-cuda': ['win32', 'x64'],
  'win-x64-cuda-ext': ['win32', 'x64'],
  'win-x64-vulkan': ['win32', 'x64'],
};
let added = 0;
for (const [name, version] of Object.entries(owner.optionalDependencies ?? {})) {
  const short = name.replace('@node-llama-cpp/', '');
  const key = `node_modules/${name}`;
  if (lock.packages[key] || !platform[short]) continue;
  const [os, cpu] = platform[short];
  lock.packages[key] = { version, cpu: [cpu], license: 'MIT', optional: true, os: [os], engines: { node: '>=20.0.0' } };
  added += 1;
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} lock entries`);
