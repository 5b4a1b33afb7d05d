#!/usr/bin/env node
// The `tether` command: composition of the subcommands only; each lives in src/cli. Worker-only.
import { Command, CommanderError } from 'commander';
import { addAcpCommand } from './cli/acp-command.js';
import { addApprovalCommands } from './cli/approval-commands.js';
import { addBatchCommand } from './cli/batch-command.js';
import { addExecCommand } from './cli/exec-command.js';
import { addInspectCommands } from './cli/inspect-commands.js';
import { addRunCommand } from './cli/run-command.js';
import { addScheduleCommands } from './cli/schedule-command.js';
import { addServeCommand } from './cli/serve-command.js';
import { addToolsCommands } from './cli/tools-command.js';
import { addWorkerCommands } from './cli/worker-command.js';
import { CliError } from './cli/errors.js';
import { TetherError } from './common/errors.js';
import { closeTools } from './worker.js';

// A closed pipe (`tether tools | head`) ends the output, not the process with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command()
  .name('tether')
  .description('A durable runner for tool-using AI agents, on Temporal')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride();

addRunCommand(program);
addInspectCommands(program);
addApprovalCommands(program);
addBatchCommand(program);
addScheduleCommands(program);
addWorkerCommands(program);
addServeCommand(program);
addToolsCommands(program);
addExecCommand(program);
addAcpCommand(program);

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
  } else {
    process.stderr.write(`tether: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
