#!/usr/bin/env node
// The `tether` command: parses the command line, then loads only the chosen subcommand's module (the table in
// src/cli/commands.ts), so a quick command does not pay for the worker's module graph. Worker-only.
import { Command, CommanderError } from 'commander';
import { defineCommands } from './cli/commands.js';
import { CliError } from './cli/errors.js';
import { runCommandEnd } from './cli/command-end.js';
import { TetherError } from './common/errors.js';
import { ensureTetherHome } from './config/home.js';
import { errorLine, helpAfter } from './cli/help-text.js';

// A closed pipe (`tether tools | head`) ends the output, not the process with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

// A gRPC call still in flight when Ctrl-C closes the Temporal connection (a retried model call being followed,
// say) rejects with "Channel has been shut down" after nobody waits for it: the command is ending anyway, so the
// rejection goes to the log file. Any other stray rejection is one line, with its stack in the log file.
// (The client's gRPC retry timer throws it from a timer, so it arrives as an uncaught exception too.)
async function strayFailure(err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  const expected = /Channel has been shut down/i.test(message);
  if (!expected)
    process.stderr.write(`tether: unexpected error: ${message} (details in TETHER_HOME/logs/tether.log)\n`);
  try {
    // Imported here: the logger's module graph (pino) is not worth loading for the commands that never fail.
    const { lazyLogger } = await import('./logging/logger.js');
    lazyLogger.warn({ err: err instanceof Error ? err.stack : message }, 'stray failure in the CLI');
  } catch {
    // no log file (TETHER_HOME unwritable): the line above is all there is
  }
  if (!expected) process.exit(1);
}
process.on('unhandledRejection', (err) => void strayFailure(err));
process.on('uncaughtException', (err) => void strayFailure(err));

const program = new Command()
  .name('tether')
  .description('A durable runner for tool-using AI agents, on Temporal')
  .version('0.1.0')
  // A mistake on the command line is one line (with "did you mean"), not the whole help after it.
  .configureOutput({ outputError: (message, write) => write(errorLine(message)) })
  .addHelpText('after', helpAfter())
  .exitOverride()
  // Every command may write logs or state: a TETHER_HOME that cannot be written is one line before anything runs.
  .hook('preAction', () => void ensureTetherHome());

await defineCommands(program, process.argv.slice(2));

/** A lost Temporal connection in the middle of a command is still one line naming the variable. */
async function temporalLine(err: unknown): Promise<string | undefined> {
  try {
    const [{ explainTemporalFailure }, { temporalSettings }] = await Promise.all([
      import('./cli/temporal-errors.js'),
      import('./temporal/settings.js'),
    ]);
    return explainTemporalFailure(err, temporalSettings());
  } catch {
    return undefined;
  }
}

try {
  await program.parseAsync(process.argv);
  await runCommandEnd();
} catch (err) {
  await runCommandEnd().catch(() => undefined);
  const temporal = err instanceof CommanderError || err instanceof TetherError ? undefined : await temporalLine(err);
  if (err instanceof CommanderError) {
    // Commander has printed its own message (or the help); keep its exit code.
    process.exitCode = err.exitCode;
  } else if (err instanceof CliError || err instanceof TetherError) {
    process.stderr.write(`tether: ${err.message}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 2;
  } else if (temporal) {
    process.stderr.write(`tether: ${temporal}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`tether: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
