// The inbox's login token, kept in TETHER_HOME (mode 0600) so the printed link stays valid across restarts of
// `tether serve` until `--new-token` rotates it. Worker-only.
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeDirs, tetherHome } from '../config/home.js';

export const tokenFile = (): string => join(tetherHome(), 'gateway', 'inbox-token');

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32,}$/;

function writeToken(file: string): string {
  const token = randomBytes(32).toString('base64url');
  makeDirs(dirname(file));
  // Written beside and renamed: a reader never sees half a token, and the file is 0600 before it holds one.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return token;
}

/** The token in TETHER_HOME, made on first use; `rotate` replaces it (every link printed before stops working). */
export function inboxToken(rotate = false, file = tokenFile()): string {
  if (!rotate) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // A file someone edited into something short or odd is replaced rather than trusted as a weak secret.
    if (text !== undefined && TOKEN_SHAPE.test(text)) return text;
  }
  return writeToken(file);
}
