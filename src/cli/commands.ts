// The table of `tether` subcommands, the one place a command is added: name, summary, and the module that defines
// it, imported only when that command runs (so `tether approvals` never loads the worker). Worker-only.
import type { Command } from 'commander';
import { CliError } from './errors.js';

/** What a command module exports: a function that defines one or more top-level commands on the program. */
export type AddCommands = (program: Command) => void;

export interface CommandEntry {
  /** `tether <name>`. */
  name: string;
  /** Its arguments as `tether --help` lists them (the module declares them for real). */
  args?: string;
  /** The description `tether --help` lists; test/cli-start.test.ts checks it is the module's own. */
  summary: string;
  /** Imports the command's module. Keep it a dynamic import: a static one loads its module graph for every command. */
  load: () => Promise<AddCommands>;
  /**
   * The command only talks to Temporal (or prints): it must not load worker, tool, parser, browser or model code.
   * test/cli-start.test.ts runs each one and fails when its loaded modules include any of those.
   */
  clientOnly?: boolean;
}

// To add a command: write src/cli/<name>-command.ts exporting `add<Name>Command(program)`, and add one entry here.
// A module that defines several commands (status, attach, ...) gets one entry per command, all with the same load.
const inspect = (): Promise<AddCommands> => import('./inspect-commands.js').then((m) => m.addInspectCommands);
const decisions = (): Promise<AddCommands> => import('./decision-commands.js').then((m) => m.addDecisionCommands);
const workerCommands = (): Promise<AddCommands> => import('./worker-command.js').then((m) => m.addWorkerCommands);
const toolsCommands = (): Promise<AddCommands> => import('./tools-command.js').then((m) => m.addToolsCommands);
const checkpointCommands = (): Promise<AddCommands> =>
  import('./checkpoints-command.js').then((m) => m.addCheckpointCommands);

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'run',
    args: '<task>',
    summary: 'Start an agent run for a task and follow it to its answer',
    load: () => import('./run-command.js').then((m) => m.addRunCommand),
  },
  {
    name: 'status',
    args: '<workflowId>',
    summary: 'Show the state of a run: status, turn, current tool calls, usage, answer',
    load: () => import('./status-command.js').then((m) => m.addStatusCommand),
    clientOnly: true,
  },
  {
    name: 'attach',
    args: '<workflowId>',
    summary: 'Follow a running agent run from another terminal until it ends',
    load: inspect,
    clientOnly: true,
  },
  {
    name: 'say',
    args: '<workflowId> <text...>',
    summary: 'Give a running agent a new instruction; it takes it at its next turn',
    load: inspect,
    clientOnly: true,
  },
  {
    name: 'answer',
    args: '<workflowId> <text...>',
    summary: 'Answer the question a running agent asked with clarify',
    load: inspect,
    clientOnly: true,
  },
  {
    name: 'cancel',
    args: '<workflowId>',
    summary: 'Cancel a run: running tool calls are stopped and the run ends as cancelled',
    load: inspect,
    clientOnly: true,
  },
  {
    name: 'checkpoints',
    args: '<workflowId>',
    summary: "List a run's checkpoints of its task directory: when, before which turn and call, what changed after",
    load: checkpointCommands,
  },
  {
    name: 'rollback',
    args: '<workflowId>',
    summary:
      "Put a run's task directory (or one path in it) back as a checkpoint holds it; takes a checkpoint first, so a rollback can be undone",
    load: checkpointCommands,
  },
  {
    name: 'list',
    summary: 'List agent runs, newest first, from visibility (works with no worker running)',
    load: () => import('./list-command.js').then((m) => m.addListCommand),
    clientOnly: true,
  },
  {
    name: 'approval',
    summary: 'Dangerous-command detection',
    load: () => import('./approval-commands.js').then((m) => m.addApprovalCommands),
  },
  {
    name: 'approvals',
    summary: 'List tool calls waiting for a decision, across running agent runs',
    load: decisions,
    clientOnly: true,
  },
  {
    name: 'approve',
    args: '<workflowId> <approvalId>',
    summary: 'Approve a pending tool call',
    load: decisions,
    clientOnly: true,
  },
  {
    name: 'deny',
    args: '<workflowId> <approvalId>',
    summary: 'Deny a pending tool call: the model is told, with the reason',
    load: decisions,
    clientOnly: true,
  },
  {
    name: 'batch',
    args: '<file>',
    summary:
      'Run one agent per line of a JSON Lines file (a task string, or {"task": ..., run options}); re-run to resume',
    load: () => import('./batch-command.js').then((m) => m.addBatchCommand),
  },
  {
    name: 'schedule',
    summary: 'Run agents on a timetable (Temporal Schedules)',
    load: () => import('./schedule-command.js').then((m) => m.addScheduleCommands),
  },
  {
    name: 'worker',
    summary: 'Run a worker: discover tools, poll the task queue, run agent workflows and their tool calls',
    load: workerCommands,
  },
  {
    name: 'server',
    summary: 'Run the Temporal dev server in the foreground, persisted in a SQLite file under TETHER_HOME',
    load: workerCommands,
  },
  {
    name: 'cluster',
    summary: 'Prepare a Temporal cluster for tether',
    load: () => import('./cluster-command.js').then((m) => m.addClusterCommand),
    clientOnly: true,
  },
  {
    name: 'codec-server',
    summary:
      "Serve the Temporal UI's remote codec endpoint (POST /encode, /decode) with temporal.encryption.key_file, so encrypted runs show as text",
    load: () => import('./codec-server-command.js').then((m) => m.addCodecServerCommand),
    clientOnly: true,
  },
  {
    name: 'serve',
    summary:
      'Run the approval gateway: the approval inbox in a browser (the printed inbox: link), POST /approvals/decision with a body signed by approvals.secret (HMAC-SHA256), and GET /approvals listing what waits',
    load: () => import('./serve-command.js').then((m) => m.addServeCommand),
  },
  {
    name: 'tools',
    summary: 'List tools with their toolset, emoji and availability (and why a tool is unavailable)',
    load: toolsCommands,
  },
  {
    name: 'toolsets',
    summary: 'List toolsets (base, composite, preset, dynamic) and the tools each resolves to',
    load: toolsCommands,
  },
  {
    name: 'plugins',
    args: '<action>',
    summary:
      "Trust this project's .tether/plugins after reviewing them: they load only while their files are as trusted, from tether's copy",
    load: toolsCommands,
  },
  {
    name: 'mcp',
    summary: 'MCP servers configured in TETHER_HOME/config.yaml (mcp_servers)',
    load: toolsCommands,
  },
  {
    name: 'exec',
    args: '<command...>',
    summary:
      'Run one command in a terminal environment (as the terminal tool would) and print its output and exit code',
    load: () => import('./exec-command.js').then((m) => m.addExecCommand),
  },
  {
    name: 'egress-ca',
    summary: "The egress proxy's certificate authority: show it, or --rotate to make a new one",
    load: () => import('./egress-ca-command.js').then((m) => m.addEgressCaCommand),
  },
  {
    name: 'model',
    summary: 'Local models: list them, install their weights',
    load: () => import('./model-command.js').then((m) => m.addModelCommands),
  },
  {
    name: 'acp',
    summary: 'Serve as an Agent Client Protocol (ACP) agent on standard input/output, for editors (Zed, ...)',
    load: () => import('./acp-command.js').then((m) => m.addAcpCommand),
  },
  {
    name: 'replay',
    args: '[ids...]',
    summary:
      "Replay agent runs' histories against this build's workflow code; exits 1 on any nondeterminism (run it before deploying a worker)",
    load: () => import('./replay-command.js').then((m) => m.addReplayCommand),
  },
];

/** The entry for a command name, looked up as an own property: the name comes from the command line. */
export function findCommand(name: string | undefined): CommandEntry | undefined {
  return name === undefined ? undefined : COMMANDS.find((c) => c.name === name);
}

/**
 * The command a command line names: its first word that is not an option (`tether` has no options of its own that
 * take a value), or for `tether help <command>` the command asked about.
 */
export function chosenCommand(argv: readonly string[]): CommandEntry | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return findCommand(words[0] === 'help' ? words[1] : words[0]);
}

/**
 * Defines the chosen command for real (importing its module), and every other one as a bare name and summary, so
 * `tether --help` lists them all and a mistyped name gets commander's suggestion, without loading any of them.
 */
export async function defineCommands(program: Command, argv: readonly string[]): Promise<void> {
  const chosen = chosenCommand(argv);
  if (chosen) (await chosen.load())(program);
  const defined = new Set(program.commands.map((c) => c.name()));
  for (const entry of COMMANDS) {
    if (defined.has(entry.name)) continue;
    const stub = program
      .command(entry.name)
      .description(entry.summary)
      .allowUnknownOption()
      .action(() => {
        // Unreachable while chosenCommand and commander agree on the command word; loud if they ever do not.
        throw new CliError(`'${entry.name}' was not loaded (src/cli/commands.ts could not tell it was chosen)`, 1);
      });
    if (entry.args) stub.arguments(entry.args);
  }
  // Commander lists commands in the order they were defined: keep the table's order, whichever module loaded first.
  // (`commands` is typed readonly for callers; sorting it in place is how commander's own order changes.)
  const order = new Map(COMMANDS.map((c, i) => [c.name, i]));
  (program.commands as Command[]).sort((a, b) => (order.get(a.name()) ?? 0) - (order.get(b.name()) ?? 0));
}
