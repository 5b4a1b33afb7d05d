// Loads TETHER_HOME/config.yaml; a wrong setting fails fast with a message naming it. Worker-only.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { TetherError } from '../registry/errors.js';
import { tetherHome } from './home.js';

/**
 * Known sections are checked strictly (a misspelt key is an error); unknown top-level sections are kept
 * for features that read their own section.
 */
/** One MCP server: `command` (stdio) or `url` (streamable HTTP, or SSE for older servers). */
export const McpServerSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    transport: z.enum(['stdio', 'http', 'sse']).optional(),
    enabled: z.boolean().default(true),
    /** Seconds a call (and connecting) may take before it is cancelled. */
    timeout: z.number().positive().default(60),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
  })
  .refine((s) => Boolean(s.command) !== Boolean(s.url), { message: 'give exactly one of command (stdio) and url (HTTP)' });

export type McpServerConfig = z.infer<typeof McpServerSchema>;

const ConfigSchema = z.looseObject({
  files: z
    .strictObject({
      /** Let file tools read and write outside the task's working directory. */
      allow_outside_cwd: z.boolean().default(false),
    })
    .prefault({}),
  mcp_servers: z.record(z.string().regex(/^[a-zA-Z0-9_-]+$/, 'server names use letters, digits, _ and -'), McpServerSchema).default({}),
  /** npm packages that are tether plugins (besides TETHER_HOME/plugins and .tether/plugins). */
  plugins: z.array(z.string().min(1)).default([]),
});

export type TetherConfig = z.infer<typeof ConfigSchema>;

export function configPath(): string {
  return process.env.TETHER_CONFIG ?? join(tetherHome(), 'config.yaml');
}

export function loadConfig(path = configPath()): TetherConfig {
  let raw: unknown = {};
  if (existsSync(path)) {
    try {
      raw = parse(readFileSync(path, 'utf8')) ?? {};
    } catch (err) {
      throw new TetherError('Config.Invalid', `${path}: not valid YAML: ${(err as Error).message}`, false);
    }
  }
  return parseConfig(raw, path);
}

/** Checks a configuration object; `source` names it in errors. `parseConfig({})` gives the defaults. */
export function parseConfig(raw: unknown, source = 'config'): TetherConfig {
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new TetherError('Config.Invalid', `${source}: ${issues.join('; ')}`, false);
  }
  return parsed.data;
}
