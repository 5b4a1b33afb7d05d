// What file tools do to a task's files, each through a descriptor opened beneath the task's working directory
// (beneath.ts), so that a link or a race in the task directory cannot make the worker read or write elsewhere.
// Worker-only.
import { constants, existsSync, type Stats } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { countRefusal } from '../observability/metrics.js';
import { TetherError } from '../common/errors.js';
import { resolveTaskPath, type FileScope } from './check-path.js';
import { Beneath, RACE_FREE } from '../fs/beneath.js';
import { currentTaskView } from '../environments/current.js';
import { hiddenMessage, within, type RootedView } from '../environments/task-view.js';
import { PROTECTED_WHY } from '../common/protected-paths.js';

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL } = constants;

/** A file opened for the tool, with what it is now (from the descriptor, not the path). */
export interface OpenedFile {
  handle: FileHandle;
  info: Stats;
  /** The path as resolved beneath the root. */
  rel: string;
}

/** Refusals a tool reports to the model as they are (`File not found: x`, `x is a directory`, ...). */
export class FileRefusal extends Error {}

/** A path the task's view does not let tools have (hidden, read-only, or not writable by its commands). */
class ViewRefusal extends FileRefusal {}

/**
 * What the task sees, asked before every directory a write makes and every name opened (task-view.ts): a hidden
 * path is refused as hidden; a write goes only where the task's commands could write.
 */
function viewCheck(
  scope: FileScope,
  rooted: RootedView,
  shown: string,
): (real: string, o: { writing: boolean }) => void {
  // The gate judged the path as given (protected-change.ts): a protected one was shown to a person as a diff.
  // (A path given under the task directory as named, not as it really is, is read as under its real path.)
  const given = resolve(scope.cwd, shown);
  const cwd = resolve(scope.cwd);
  const judged = rooted.protectedAt(
    within(given, cwd) ? join(rooted.roots[0]!, relative(cwd, given)) : given,
    holdsGit,
  );
  return (real, o) => {
    const sight = rooted.sight(real);
    if (sight && 'hidden' in sight) throw new ViewRefusal(hiddenMessage(shown, sight.hidden));
    if (!o.writing) return;
    const entry = judged ? undefined : rooted.protectedAt(real, holdsGit);
    if (entry)
      throw new ViewRefusal(
        `${shown} leads to ${real}, which is protected (${PROTECTED_WHY[entry.kind]}): a file tool changes a protected file only by its own path, so that a person sees the change and is asked; write ${relative(rooted.roots[0]!, real)} itself`,
      );
    if (sight && 'readOnly' in sight)
      throw new ViewRefusal(
        `${shown} is read-only: terminal.local.sandbox.expose lets the task read it, not change it`,
      );
    if (rooted.view.sandboxed && !rooted.roots.some((r) => within(real, r)))
      throw new ViewRefusal(
        `${shown} is outside what the task's commands can write (the working directory ${scope.cwd} and terminal.local.sandbox.writable); file tools write only there`,
      );
  };
}

/** Whether `dir` is a repository's top (a `.git` directory, or the file of a submodule or linked worktree). */
const holdsGit = (dir: string): boolean => existsSync(join(dir, '.git'));

/** The task's view for a scope (the worker's, unless a caller gives one), with its directory's real path. */
export async function taskViewOf(scope: FileScope): Promise<RootedView> {
  const cwd = await realpath(scope.cwd).catch(() => resolve(scope.cwd));
  return (scope.view ?? currentTaskView()).forTask(cwd);
}

/**
 * Opens `path` beneath the task's directory (or beneath `/` when files.allow_outside_cwd is set: links are then
 * the machine's business). Without /proc (not Linux) the path is checked, then opened: not race-free, and said so in
 * docs/sandbox.md.
 */
async function openIn(
  scope: FileScope,
  path: string,
  flags: number,
  o: { mkdirs?: boolean } = {},
): Promise<{ handle: FileHandle; rel: string }> {
  const check = viewCheck(scope, await taskViewOf(scope), path);
  if (!RACE_FREE) {
    const abs = resolveTaskPath(scope, path);
    check(await realpath(abs).catch(() => abs), { writing: (flags & (O_WRONLY | O_RDWR | O_CREAT)) !== 0 });
    if (o.mkdirs) {
      const { mkdir } = await import('node:fs/promises');
      const { dirname } = await import('node:path');
      await mkdir(dirname(abs), { recursive: true });
    }
    return { handle: await open(abs, flags, 0o666), rel: path };
  }
  if (scope.allowOutsideCwd) return Beneath.with('/', (b) => b.open(resolve(scope.cwd, path), flags, { ...o, check }));
  return Beneath.with(scope.cwd, (b) => b.open(path, flags, { ...o, check }));
}

function notFound(path: string, err: unknown): FileRefusal | unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new FileRefusal(`File not found: ${path}`);
  if (code === 'EISDIR') return new FileRefusal(`${path} is a directory`);
  // A FIFO opened to write (non-blocking) with nobody reading it.
  if (code === 'ENXIO') return new FileRefusal(`${path} is not a regular file; tether writes only regular files`);
  if (code === 'EACCES' || code === 'EPERM') return new FileRefusal(`${path}: permission denied`);
  return err;
}

/** Opens an existing file or directory to read; the caller closes `handle`. */
export async function openForReading(scope: FileScope, path: string): Promise<OpenedFile> {
  let opened: { handle: FileHandle; rel: string };
  try {
    opened = await openIn(scope, path, O_RDONLY);
  } catch (err) {
    throw notFound(path, err);
  }
  const info = await opened.handle.stat();
  return { ...opened, info };
}

/** Reads a whole regular file of at most `maxBytes` bytes. */
export async function readTaskFile(scope: FileScope, path: string, maxBytes: number): Promise<Buffer> {
  const f = await openForReading(scope, path);
  try {
    if (f.info.isDirectory()) throw new FileRefusal(`${path} is a directory`);
    if (!f.info.isFile()) throw new FileRefusal(`${path} is not a regular file`);
    if (f.info.size > maxBytes)
      throw new FileRefusal(`${path} is ${f.info.size} bytes; files over ${maxBytes} bytes are not read`);
    return await f.handle.readFile();
  } finally {
    await f.handle.close();
  }
}

/**
 * A regular file the worker may change: not a directory, device or FIFO, and not linked from elsewhere (a hard
 * link would carry the write to a file outside the task directory; a command in the sandbox cannot make one, but
 * one made before, or without the sandbox, could).
 */
function checkWritable(path: string, info: Stats): void {
  if (info.isDirectory()) throw new FileRefusal(`${path} is a directory`);
  if (!info.isFile()) throw new FileRefusal(`${path} is not a regular file; tether writes only regular files`);
  if (info.nlink > 1)
    throw new FileRefusal(
      `${path} has ${info.nlink} hard links; tether does not write through a hard link (it may be a file outside the working directory): copy it to a new file first`,
    );
}

/** Writes `data` as the whole file, making missing parent directories; `exclusive`: only a new file. */
export async function writeTaskFile(
  scope: FileScope,
  path: string,
  data: string | Buffer,
  o: { exclusive?: boolean } = {},
): Promise<void> {
  let opened: { handle: FileHandle; rel: string };
  try {
    opened = await openIn(scope, path, O_WRONLY | O_CREAT | (o.exclusive ? O_EXCL : 0), { mkdirs: true });
  } catch (err) {
    throw notFound(path, err);
  }
  try {
    checkWritable(path, await opened.handle.stat());
    // Truncated only once it is known to be a file of the task's own: O_TRUNC would act before any check.
    await opened.handle.truncate(0);
    await opened.handle.writeFile(data);
  } finally {
    await opened.handle.close();
  }
}

/**
 * Reads a text file and writes back what `change` returns (nothing when it returns undefined), through one
 * descriptor: what is changed is exactly what was read.
 */
export async function updateTaskFile(
  scope: FileScope,
  path: string,
  maxBytes: number,
  change: (text: string) => string | undefined,
): Promise<void> {
  let opened: { handle: FileHandle; rel: string };
  try {
    opened = await openIn(scope, path, O_RDWR);
  } catch (err) {
    throw notFound(path, err);
  }
  try {
    const info = await opened.handle.stat();
    checkWritable(path, info);
    if (info.size > maxBytes)
      throw new FileRefusal(`${path} is ${info.size} bytes; files over ${maxBytes} bytes are not edited`);
    const text = (await opened.handle.readFile()).toString('utf8');
    const next = change(text);
    if (next === undefined) return;
    await opened.handle.truncate(0);
    await opened.handle.write(next, 0, 'utf8');
  } finally {
    await opened.handle.close();
  }
}

/** A tool's answer for a refusal: the message as it is; anything else goes on to dispatch's own handling. */
export function refusalMessage(err: unknown): string | undefined {
  if (err instanceof ViewRefusal) countRefusal('sandbox');
  if (err instanceof FileRefusal) return err.message;
  if (err instanceof TetherError && err.code === 'Path.OutsideWorkdir') {
    countRefusal('sandbox'); // tether_refusals_total{kind="sandbox"}: the one place file tools turn it into an answer
    return err.message;
  }
  return undefined;
}
