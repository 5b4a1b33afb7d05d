#!/usr/bin/env node
// The `tether` command: composition of the subcommands only; each lives in src/cli. Worker-only.
import { Command, CommanderError } from 'commander';
import { addAcpCommand } from './cli/acp-command.js';
import { addApprovalCommands } from './cli/approval-commands.js';
import { addBatchCommand } from './cli/batch-command.js';
import { addCheckpointCommands } from './cli/checkpoints-command.js';
import { addExecCommand } from './cli/exec-command.js';
import { addInspectCommands } from './cli/inspect-commands.js';
import { addListCommand } from './cli/list-command.js';
import { addClusterCommand } from './cli/cluster-command.js';
import { addRunCommand } from './cli/run-command.js';
import { addReplayCommand } from './cli/replay-command.js';
import { addScheduleCommands } from './cli/schedule-command.js';
import { addServeCommand } from './cli/serve-command.js';
import { addToolsCommands } from './cli/tools-command.js';
import { addWorkerCommands } from './cli/worker-command.js';
import { CliError } from './cli/errors.js';
import { TetherError } from './common/errors.js';
import { closeTools } from './worker.js';
import { ensureTetherHome } from './config/home.js';
import { lazyLogger } from './logging/logger.js';
import { explainTemporalFailure } from './cli/temporal-errors.js';
import { temporalSettings } from './temporal/settings.js';

// A closed pipe (`tether tools | head`) ends the output, not the process with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

// A gRPC call still in flight when Ctrl-C closes the Temporal connection (a retried model call being followed,
// say) rejects with "Channel has been shut down" after nobody waits for it: the command is ending anyway, so the
// rejection goes to the log file. Any other stray rejection is one line, with its stack in the log file.
// (The client's gRPC retry timer throws it from a timer, so it arrives as an uncaught exception too.)
function strayFailure(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  try {
    lazyLogger.warn({ err: err instanceof Error ? err.stack : message }, 'stray failure in the CLI');
  } catch {
    // no log file (TETHER_HOME unwritable): the line below is all there is
  }
  if (/Channel has been shut down/i.test(message)) return;
  process.stderr.write(`tether: unexpected error: ${message} (details in TETHER_HOME/logs/tether.log)\n`);
  process.exit(1);
}
process.on('unhandledRejection', strayFailure);
process.on('uncaughtException', strayFailure);

const program = new Command()
  .name('tether')
  .description('A durable runner for tool-using AI agents, on Temporal')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride()
  // Every command may write logs or state: a TETHER_HOME that cannot be written is one line before anything runs.
  .hook('preAction', () => void ensureTetherHome());

addRunCommand(program);
addInspectCommands(program);
addCheckpointCommands(program);
addListCommand(program);
addApprovalCommands(program);
addBatchCommand(program);
addScheduleCommands(program);
addWorkerCommands(program);
addClusterCommand(program);
addServeCommand(program);
addToolsCommands(program);
addExecCommand(program);
addAcpCommand(program);
addReplayCommand(program);

/** A lost Temporal connection in the middle of a command is still one line naming the variable. */
function temporalLine(err: unknown): string | undefined {
  try {
    return explainTemporalFailure(err, temporalSettings());
  } catch {
    return undefined;
  }
}

try {
  await program.parseAsync(process.argv);
  await closeTools();
} catch (err) {
  await closeTools().catch(() => undefined);
  if (err instanceof CommanderError) {
    // Commander has printed its own message (or the help); keep its exit code.
    process.exitCode = err.exitCode;
  } else if (err instanceof CliError || err instanceof TetherError) {
    process.stderr.write(`tether: ${err.message}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 2;
  } else if (temporalLine(err)) {
    process.stderr.write(`tether: ${temporalLine(err)}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`tether: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
