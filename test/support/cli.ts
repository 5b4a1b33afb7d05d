// Runs the compiled `tether` command as a user would, and waits for conditions in end-to-end tests.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const cliPath = fileURLToPath(new URL('../../dist/client.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node dist/client.js ...args` in `cwd` with `env` added to this process's environment. */
export function runCli(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  if (!existsSync(cliPath))
    throw new Error(`${cliPath} is missing: run 'npm run build' (npm ci does it through 'prepare')`);
  return new Promise((resolve) => {
    execFile(
      'node',
      [cliPath, ...args],
      { cwd: opts.cwd, env: { ...process.env, ...opts.env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Polls `check` until it holds, failing with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
