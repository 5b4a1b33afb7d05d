// tether's own control plane driven from inside a run: a command that approves a pending call (its own, as far as
// anyone can tell) is refused; one that starts, signals, cancels or serves runs, or changes workflows on a Temporal
// server, asks. Reading state (status, list, describe, query) stays ordinary. Pure.
import { parseFlags } from '../engine/argv.js';
import { show, type Check } from './types.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';

/** tether's subcommands that only read: everything else changes runs, workers or the gate. */
const TETHER_READS = new Set(
  names(`status attach list approvals approval tools toolsets mcp replay help -h --help -V --version`),
);

/** Options of the tether CLI that take a value (so the value is not read as the subcommand). */
const TETHER_VALUE_FLAGS = ['--config', '--address', '--namespace', '--task-queue'];

const tether: Check = (cmd, _io, ctx) => {
  const sub = parseFlags(cmd.args, TETHER_VALUE_FLAGS).operands[0]?.text;
  if (sub === undefined || TETHER_READS.has(sub)) return;
  ctx.add(sub === 'approve' ? 'self-approval' : 'control-plane', show(cmd));
};

/** Verbs of the temporal CLI (any command group) that only read or run a local dev server. */
const TEMPORAL_READS =
  /^(list|describe|show|query|count|stack|trace|result|get|help|version|start-dev|env|config|metadata|--help|-h|--version|-v)$/;

/** The names tether's workflows take decisions by (src/workflows/approvals.ts). */
const APPROVAL_HANDLERS = /^(approval|decideApproval)$/;

const TEMPORAL_VALUE_FLAGS = names(`
  --address --namespace -n --env --workflow-id -w --run-id -r --name --input -i --input-file --type --task-queue -t
  --query -q --output -o --tls-cert-path --tls-key-path --tls-ca-path --api-key --reason --schedule-id -s --log-level
`);

/** temporal GROUP [SUBGROUP] VERB ...: the last operand word before the flags' values is the verb. */
const temporal: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, TEMPORAL_VALUE_FLAGS);
  const words = f.operands.map((o) => o.text);
  if (words.length === 0 || words.some((w) => TEMPORAL_READS.test(w))) return;
  ctx.add(APPROVAL_HANDLERS.test(f.values.get('--name') ?? '') ? 'self-approval' : 'control-plane', show(cmd));
};

judges(import.meta.url, { tether, 'temporal tctl': temporal }, { claims: true });
