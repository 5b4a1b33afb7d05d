// How the CLI reports a user error: a message on stderr and a non-zero exit code, never a stack trace. Worker-only.
import { TetherError } from '../common/errors.js';

/** A user error of the command line (code Cli.Usage), with the exit code to leave with. */
export class CliError extends TetherError {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super('Cli.Usage', message);
  }
}

/** Splits a comma-separated option value ("a,b, c") into names. */
export function listOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A whole number of at least 1 from an option's text; `undefined` stays undefined. */
export function positiveIntOption(value: string, option: string): number;
export function positiveIntOption(value: string | undefined, option: string): number | undefined;
export function positiveIntOption(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${option} must be a positive whole number, got '${value}'`);
  return n;
}
