// What the approval gate reads for a file tool's call (write_file, patch), which runs on the task directory from the
// worker rather than in the task's environment: the files a verdict needs (is the directory written into a git
// directory?), each opened beneath the task directory like the tool's own write. Worker-only.
import { MAX_SCRIPT_BYTES, listedDir, prefetchOf, type ScriptFile } from '../detector/engine/scripts.js';
import type { FileScope } from './check-path.js';
import { openForReading } from './task-files.js';

async function readOne(scope: FileScope, key: string): Promise<ScriptFile> {
  // Listings and the home directory are the environment's to read; a file tool's verdict does not need them.
  if (listedDir(key) !== undefined || prefetchOf(key) !== undefined || key.startsWith('~'))
    return { error: 'is not read for a file tool' };
  let f: Awaited<ReturnType<typeof openForReading>>;
  try {
    f = await openForReading(scope, key);
  } catch (err) {
    return /File not found/.test(String((err as Error).message)) ? { missing: true } : { error: 'could not be read' };
  }
  try {
    if (f.info.isDirectory()) return { directory: true };
    if (!f.info.isFile()) return { error: 'is not a regular file' };
    if (f.info.size > MAX_SCRIPT_BYTES) return { error: `is too big to check` };
    const bytes = await f.handle.readFile();
    return bytes.includes(0) ? { binary: true } : { text: bytes.toString('utf8') };
  } finally {
    await f.handle.close();
  }
}

/** The files of `keys` (relative to the task directory, or absolute inside it) as the gate's reader returns them. */
export async function readForFileTool(scope: FileScope, keys: string[]): Promise<Map<string, ScriptFile>> {
  const out = new Map<string, ScriptFile>();
  for (const key of new Set(keys)) out.set(key, await readOne(scope, key));
  return out;
}
