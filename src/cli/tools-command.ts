// `tether tools` and `tether toolsets`: what the model could be given, and why a tool is hidden. Worker-only.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { configureEnvironments } from '../environments/current.js';
import { lazyLogger } from '../logging/logger.js';
import { pluginSources, type Extensions } from '../plugins/extensions.js';
import { existsSync } from 'node:fs';
import { recordTrust, trustFile } from '../plugins/trust.js';
import { resolve } from 'node:path';
import { closeTools, loadToolsOnce } from '../worker.js';
import { registry } from '../registry/index.js';
import type { Availability } from '../registry/types.js';
import { listToolsets, selectToolNames, toolsetNotices, validateToolsets } from '../toolsets/resolve.js';
import { atCommandEnd } from './command-end.js';
import { CliError, listOption } from './errors.js';

/** Built-in tools, plugins and MCP servers, as a worker of this configuration would have them. */
export async function loadTools(config = loadConfig()): Promise<Extensions> {
  // MCP connections and terminal environments opened from here are closed when the command ends.
  atCommandEnd(closeTools);
  const ext = await loadToolsOnce(config, lazyLogger);
  // The terminal tools' availability depends on the configured backend (credentials, binaries).
  await configureEnvironments(config.terminal);
  for (const f of ext.plugins.failed) process.stderr.write(`warning: plugin ${f.plugin} was skipped: ${f.error}\n`);
  for (const s of ext.mcpServers)
    if (s.status === 'failed') process.stderr.write(`warning: MCP server '${s.name}' was skipped: ${s.error ?? ''}\n`);
  return ext;
}

export function checkToolsets(names: string[] | undefined, option: string): void {
  const problem = validateToolsets(names ?? []);
  if (problem) throw new CliError(`${option}: ${problem}`);
  for (const notice of toolsetNotices(names ?? [])) process.stderr.write(`tether: ${option}: ${notice}\n`);
}

export function addToolsCommands(program: Command): void {
  program
    .command('tools')
    .description('List tools with their toolset, emoji and availability (and why a tool is unavailable)')
    .option('--toolsets <names>', 'only tools in these toolsets (comma-separated)')
    .option('--disable <names>', 'leave out tools in these toolsets (comma-separated)')
    .option('--json', 'print a JSON array')
    .action(async (opts: { toolsets?: string; disable?: string; json?: boolean }) => {
      await loadTools();
      const enabledToolsets = listOption(opts.toolsets);
      const disabledToolsets = listOption(opts.disable);
      checkToolsets(enabledToolsets, '--toolsets');
      checkToolsets(disabledToolsets, '--disable');
      const checks = new Map<() => boolean, Availability>();
      const rows = selectToolNames({ enabledToolsets, disabledToolsets, quiet: true }).map((name) => {
        const t = registry.get(name)!;
        const a = registry.availability(t, checks);
        return {
          name: t.name,
          toolset: t.toolset,
          emoji: t.emoji,
          available: a.available,
          ...(a.available ? {} : { reason: a.reason }),
          parallelSafe: t.parallelSafe,
          sideEffects: t.sideEffects,
          handledBy: t.agentLoop ? 'agent-loop' : 'dispatch',
          description: t.description,
        };
      });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const width = Math.max(4, ...rows.map((r) => r.name.length));
      const setWidth = Math.max(7, ...rows.map((r) => r.toolset.length));
      for (const r of rows) {
        const state = r.available ? 'available' : `unavailable: ${r.reason}`;
        process.stdout.write(`${r.emoji}  ${r.name.padEnd(width)}  ${r.toolset.padEnd(setWidth)}  ${state}\n`);
      }
      process.stdout.write(`${rows.length} tools, ${rows.filter((r) => r.available).length} available\n`);
    });

  program
    .command('plugins')
    .description(
      "Trust this project's .tether/plugins after reviewing them: they load only while their files stay as trusted",
    )
    .argument('<action>', 'trust')
    .option('--project <dir>', 'the project (default: the current directory)')
    .action((action: string, opts: { project?: string }) => {
      if (action !== 'trust') throw new CliError(`plugins: unknown action ${JSON.stringify(action)}: use trust`);
      const dir = pluginSources(loadConfig(), resolve(opts.project ?? process.cwd())).projectDir;
      if (!existsSync(dir)) {
        process.stdout.write(`no project plugins here (${dir}): nothing to trust\n`);
        return;
      }
      const paths = [dir];
      const record = recordTrust(paths);
      for (const p of paths) process.stdout.write(`trusted ${p} (sha256 ${record[p]?.slice(0, 16) ?? '?'}…)\n`);
      process.stdout.write(`recorded in ${trustFile()}; a change to these files untrusts them again\n`);
    });

  const mcp = program.command('mcp').description('MCP servers configured in TETHER_HOME/config.yaml (mcp_servers)');
  mcp
    .command('list')
    .description('Connect to each configured MCP server and show its status and tools')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { mcpServers } = await loadTools();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(mcpServers, null, 2)}\n`);
        return;
      }
      if (mcpServers.length === 0) process.stdout.write('no MCP servers configured (mcp_servers in config.yaml)\n');
      for (const s of mcpServers) {
        process.stdout.write(`${s.name}  ${s.status}  ${s.tools.length} tools${s.error ? `  ${s.error}` : ''}\n`);
      }
    });

  program
    .command('toolsets')
    .description('List toolsets (base, composite, preset, dynamic) and the tools each resolves to')
    .option('--json', 'print a JSON array')
    .action(async (opts: { json?: boolean }) => {
      await loadTools();
      const checks = new Map<() => boolean, Availability>();
      const sets = listToolsets().map((s) => ({
        ...s,
        available: s.tools.some((t) => registry.availability(registry.get(t)!, checks).available),
      }));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(sets, null, 2)}\n`);
        return;
      }
      for (const s of sets) {
        process.stdout.write(
          `${s.name} (${s.kind}${s.available ? '' : ', nothing available'}): ${s.tools.join(', ') || '-'}\n`,
        );
      }
    });
}
