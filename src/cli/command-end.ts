// What must be closed when a command ends (MCP connections, terminal environments), registered by whatever opened it,
// so the entry point need not import the worker to close it. Worker-only.

const tasks = new Set<() => Promise<void>>();

/** Runs `close` once when the command ends, whether it succeeded or failed. Registering the same function twice is one. */
export function atCommandEnd(close: () => Promise<void>): void {
  tasks.add(close);
}

/** Runs and forgets what was registered, in order; the first failure is thrown after all have run. */
export async function runCommandEnd(): Promise<void> {
  const pending = [...tasks];
  tasks.clear();
  let first: unknown;
  for (const close of pending) {
    try {
      await close();
    } catch (err) {
      first ??= err;
    }
  }
  if (first !== undefined) throw first;
}
