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
const ConfigSchema = z.looseObject({
  files: z
    .strictObject({
      /** Let file tools read and write outside the task's working directory. */
      allow_outside_cwd: z.boolean().default(false),
    })
    .prefault({}),
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
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new TetherError('Config.Invalid', `${path}: ${issues.join('; ')}`, false);
  }
  return parsed.data;
}
