#!/usr/bin/env node
// Build step: writes the lean read path's message descriptor (dist/payloads/lean-proto.json) from the installed
// @temporalio/proto, so the CLI's quick reads load a few message types instead of Temporal's whole API.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { protoSubset } = await import(new URL('../dist/payloads/proto-subset.js', import.meta.url).href);
const { LEAN_PROTO_FILE } = await import(new URL('../dist/payloads/lean-proto.js', import.meta.url).href);
const full = createRequire(`${root}/package.json`)('@temporalio/proto/protos/json-module');
const text = JSON.stringify(protoSubset(full));
writeFileSync(LEAN_PROTO_FILE, text);
console.log(`lean proto: ${Math.round(text.length / 1024)} KB descriptor in ${LEAN_PROTO_FILE}`);
