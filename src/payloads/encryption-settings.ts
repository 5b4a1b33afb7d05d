// Whether payload encryption is on: `temporal.encryption.key_file` of config.yaml, read once per process. Read
// without the whole configuration schema, so the CLI's quick commands stay quick. Worker-only (clients use it too).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { TetherError } from '../common/errors.js';
import { configPath } from '../config/home.js';
import { KEY_FILE_SETTING, loadKeyring, type Keyring } from './keyring.js';

/** A key file named in config.yaml: `~/` is the home directory, a relative path is relative to config.yaml. */
export function resolveKeyFile(value: string, config: string): string {
  if (value.startsWith('~/')) return join(homedir(), value.slice(2));
  return isAbsolute(value) ? value : resolve(dirname(config), value);
}

/** The `temporal.encryption.key_file` value of the config file, or undefined when it sets none. */
export function keyFileSetting(path = configPath()): string | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  if (!text.includes('key_file')) return undefined; // no YAML parse for the usual config
  let raw: unknown;
  try {
    // Loaded only here: the CLI's quick reads of a config without a key file never load a YAML parser.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    raw = parse(text);
  } catch (err) {
    throw new TetherError('Config.Invalid', `${path}: not valid YAML: ${(err as Error).message}`, false);
  }
  const value = (raw as { temporal?: { encryption?: { key_file?: unknown } } } | null)?.temporal?.encryption?.key_file;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    throw new TetherError('Config.Invalid', `${path}: ${KEY_FILE_SETTING}: give the path of the key file`, false);
  return resolveKeyFile(value.trim(), path);
}

let cached: { config: string; keyring: Keyring | undefined } | undefined;

/** This process's keys, or undefined when encryption is off. A bad key file stops the caller here, naming it. */
export function payloadKeyring(): Keyring | undefined {
  const config = configPath();
  if (cached?.config === config) return cached.keyring;
  const file = keyFileSetting(config);
  const keyring = file === undefined ? undefined : loadKeyring(file);
  cached = { config, keyring };
  return keyring;
}
