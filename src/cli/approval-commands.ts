// `tether approval check|rules`: judge commands as the approval gate would, and list its rules. Worker-only.
import type { Command } from 'commander';
import { RULES } from '../common/rules.js';
import { runApprovalCheck, type CheckOptions } from './approval-check.js';
import { CliError } from './errors.js';

export function addApprovalCommands(program: Command): void {
  const approval = program
    .command('approval')
    .description('Judge a command as the gate would (approval check), or list the rules (approval rules)');
  approval
    .command('check')
    .description(
      'Print the verdict on a command (exit code 3 when it is dangerous), or on JSON lines from standard input',
    )
    .argument('[command...]', 'the command, as one argument or several words')
    .option('--json', 'print the verdict as JSON')
    .option(
      '--jsonl',
      'read one JSON-encoded command string per line on standard input; write one JSON verdict per line',
    )
    .option('--cwd <dir>', 'the project directory paths are judged against (default: the current directory)')
    .option(
      '--stdin <text>',
      "text given to the command on standard input (judged as the program's input: `sh`, `python3`, `psql`)",
    )
    .option('--language <language>', 'the words are a python or javascript program, judged as execute_code judges it')
    .action(async (words: string[], opts: CheckOptions) => {
      if (!opts.jsonl && words.length === 0)
        throw new CliError('give a command to check, or --jsonl to read commands from standard input', 2);
      process.exitCode = await runApprovalCheck(words, opts);
    });
  approval
    .command('rules')
    .description('List the rule ids (usable in command_allowlist) with their tier and description')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      const rules = [...RULES.values()];
      if (opts.json) process.stdout.write(`${JSON.stringify(rules, null, 2)}\n`);
      else for (const r of rules) process.stdout.write(`${r.id.padEnd(24)} ${r.tier.padEnd(9)} ${r.description}\n`);
    });
}
