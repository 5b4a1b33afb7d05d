// Set-up helper: whether a path is a file this process may execute.
import { accessSync, constants } from 'node:fs';

export function executable(p) {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
