// The lean read path's message types: protobufjs's light runtime over the descriptor `npm run build` wrote beside
// this file (from @temporalio/proto, so field numbers are the installed API's), never the whole API. Worker-only.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs/light.js';
import { protoSubset } from './proto-subset.js';

/** Where `npm run build` writes the descriptor (scripts/lean-proto.mjs). */
export const LEAN_PROTO_FILE = fileURLToPath(new URL('./lean-proto.json', import.meta.url));

let root: protobuf.Root | undefined;

function descriptor(): protobuf.INamespace {
  if (existsSync(LEAN_PROTO_FILE)) return JSON.parse(readFileSync(LEAN_PROTO_FILE, 'utf8')) as protobuf.INamespace;
  // Running from the sources (tests, tsx): derive it now from the whole API, as the build does.
  const require = createRequire(import.meta.url);
  const full = require('@temporalio/proto/protos/json-module') as protobuf.Root;
  return protoSubset(full) as protobuf.INamespace;
}

/** A message type of the subset by its full name (`temporal.api.workflowservice.v1.QueryWorkflowRequest`). */
export function leanType(name: string): protobuf.Type {
  root ??= protobuf.Root.fromJSON(descriptor());
  return root.lookupType(name);
}

/** An enum value's name without its type prefix, as the full client names it (`WORKFLOW_EXECUTION_STATUS_RUNNING` → `RUNNING`). */
export function enumName(enumType: string, value: number, prefix: string): string | undefined {
  root ??= protobuf.Root.fromJSON(descriptor());
  const name = root.lookupEnum(enumType).valuesById[value];
  return name?.startsWith(prefix) ? name.slice(prefix.length) : name;
}
