// `tether config check` (every problem of config.yaml at once, each with its path and the key a typo meant) and
// `tether config show` (the settings in effect, each with where it came from). Worker-only.
import type { Command } from 'commander';
import { checkConfigFile, configPath } from '../config/config.js';
import { translateHermes } from '../config/hermes-keys.js';
import { problemLine, problemsOf, type ConfigProblem } from '../config/config-check.js';
import { didYouMean } from '../config/did-you-mean.js';
import { TERMINAL_KEYS } from '../config/config.js';
import { CliError } from './errors.js';
import { effectiveSettings } from './config-show.js';

/**
 * Problems of the backend sections of `terminal` (each checked by its backend's own schema, as the worker does), read
 * from the file as written (after Hermes's names), so they are named even when other sections have problems.
 */
async function terminalProblems(raw: unknown): Promise<ConfigProblem[]> {
  const { backendSettingsSchema, builtinBackendNames } = await import('../environments/backends.js');
  const out: ConfigProblem[] = [];
  const section = (translateHermes(raw).value as { terminal?: unknown } | undefined)?.terminal;
  if (!section || typeof section !== 'object' || Array.isArray(section)) return out;
  const terminal = section as Record<string, unknown>;
  const backend = typeof terminal.backend === 'string' ? terminal.backend : 'local';
  const config = { terminal: { backend } };
  const names = [...new Set([backend, ...Object.keys(terminal).filter((k) => !TERMINAL_KEYS.includes(k))])];
  for (const name of names) {
    const schema = await backendSettingsSchema(name);
    if (!schema) {
      const known = [...TERMINAL_KEYS, ...builtinBackendNames()];
      const meant = didYouMean(name, known);
      out.push(
        name === config.terminal.backend
          ? {
              path: 'terminal.backend',
              message: `unknown backend '${name}'${meant ? ` (did you mean ${meant}?)` : ` (built in: ${builtinBackendNames().join(', ')})`}`,
            }
          : {
              path: `terminal.${name}`,
              message: `unknown key${meant ? ` (did you mean ${meant}?)` : ` (terminal's settings and backend sections: ${known.join(', ')})`}`,
            },
      );
      continue;
    }
    const parsed = schema.safeParse(terminal[name] ?? {});
    if (!parsed.success) out.push(...problemsOf(parsed.error, schema, ['terminal', name]));
  }
  return out;
}

export function addConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('Check TETHER_HOME/config.yaml, or show the settings in effect and where each came from');
  config
    .command('check')
    .description(
      'Check config.yaml: every problem at once, each with its path (and the key a typo meant); exit 1 on any',
    )
    .argument('[file]', 'the file to check (default: TETHER_CONFIG, else TETHER_HOME/config.yaml)')
    .action(async (file: string | undefined) => {
      const path = file ?? configPath();
      const checked = checkConfigFile(path);
      const problems = [...checked.problems];
      problems.push(...(await terminalProblems(checked.raw)));
      for (const n of checked.notices) process.stderr.write(`${path}: ${n}\n`);
      if (problems.length === 0) {
        process.stdout.write(
          checked.exists ? `${path}: no problems\n` : `${path} does not exist: every setting has its default\n`,
        );
        return;
      }
      process.stdout.write(`${problems.map((p) => `${path}: ${problemLine(p)}`).join('\n')}\n`);
      throw new CliError(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${path}`, 1);
    });
  config
    .command('show')
    .description(
      'Show the settings in effect (config.yaml, the environment, the defaults), each with where it came from',
    )
    .option('--json', 'print JSON: [{setting, value, from}]')
    .action(async (opts: { json?: boolean }) => {
      const rows = await effectiveSettings();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const width = Math.min(40, Math.max(...rows.map((r) => r.setting.length)));
      for (const r of rows) process.stdout.write(`${r.setting.padEnd(width)}  ${r.value}  (${r.from})\n`);
    });
}
