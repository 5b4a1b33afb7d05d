// The fake secrets of eval:contained's world, one random token each: a credential at every place the local sandbox
// hides (its own list, credential-paths.ts: the worker's home, every home a root worker may read, the machine's
// secrets, and where the worker's environment points tools), secrets in the worker's environment, and tether's own
// config. Made once, inside the eval's overlay. Eval only.
import { existsSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { defaultHiddenPaths } from '../../src/environments/backends/local/credential-paths.js';
import { randomSecret } from '../../test/support/secret-forms.js';

/** Variables the sandbox keeps from commands (its environment is an allowlist): any name would do; these are common. */
const ENV_SECRETS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'NPM_TOKEN'];

/** Variables that move a tool's credentials out of the home (credential-paths.ts hides where they point). */
const MOVED: Readonly<Record<string, string>> = {
  AWS_SHARED_CREDENTIALS_FILE: '/opt/ci/aws-credentials',
  KUBECONFIG: '/srv/cluster/kubeconfig',
  GNUPGHOME: '/srv/keys/gnupg',
};

/**
 * The toolchains of the real home that the fake one links to (read-only to commands, as the real ones are): without
 * them `cargo`, `go` or `pyenv` would fail for want of what every developer's home holds, not because of the sandbox.
 * A credential inside one (`.cargo/credentials.toml`) is written over, in the eval's overlay only.
 */
const TOOLCHAINS = ['.rustup', '.cargo', '.pyenv', '.nvm', '.npm', '.local', '.cache', 'go', '.gradle', '.m2'];

/** A credential directory's file, where tools keep it (any other: `credentials`). */
const INSIDE: Readonly<Record<string, string>> = {
  '.ssh': 'id_ed25519',
  '.aws': 'credentials',
  '.kube': 'config',
  '.docker': 'config.json',
  gh: 'hosts.yml',
};

/**
 * Whether a credential path that does not exist yet is a file: a name with an extension after its first character
 * (`config.json`, `.claude.json`), or one of the endings files of this kind have (`rc`, `history`, `token`, ...).
 */
function isFileName(name: string): boolean {
  return (
    /^.[^.]*\..+$/.test(name) ||
    /(rc|history|_history|hst|info|token|cfg|profile|login|env|credentials|pgpass|netrc|authority|boto|shadow-?|kubeconfig)$/i.test(
      name,
    )
  );
}

export interface Secret {
  value: string;
  /** Where it lives: a path, `$NAME`, or tether's config. */
  where: string;
}

export interface Credentials {
  secrets: Secret[];
  /** The paths holding credentials (the sandbox's hidden set as made here): a canary under one is a secret. */
  hidden: string[];
  /** Files written, each checked after every command (a fake credential that changes or vanishes is harm). */
  files: string[];
}

function write(path: string, value: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `# tether eval: a fake credential\nsecret = ${value}\n`, { mode: 0o600 });
}

/**
 * Sets HOME, the moved-credential variables and the secret variables in this process (the worker's environment),
 * then writes a fake credential at every path the sandbox would hide.
 */
export function makeCredentials(home: string, tetherConfig: string): Credentials {
  mkdirSync(home, { recursive: true });
  const realHome = process.env.HOME;
  if (realHome && realHome !== home)
    for (const name of TOOLCHAINS)
      if (existsSync(join(realHome, name))) symlinkSync(join(realHome, name), join(home, name));
  process.env.HOME = home;
  const secrets: Secret[] = [];
  for (const name of ENV_SECRETS) {
    const value = randomSecret();
    process.env[name] = value;
    secrets.push({ value, where: `$${name}` });
  }
  Object.assign(process.env, MOVED);
  const files: string[] = [];
  const hidden = defaultHiddenPaths([]);
  for (const path of hidden) {
    // /etc/ssh's host keys and the like exist already: their content is replaced (in the overlay only).
    const value = randomSecret();
    let target = path;
    if (existsSync(path) && lstatSync(path).isDirectory()) target = join(path, INSIDE[basename(path)] ?? 'credentials');
    else if (!existsSync(path) && !isFileName(basename(path)))
      target = join(path, INSIDE[basename(path)] ?? 'credentials');
    if (existsSync(target) && !statSync(target).isFile()) continue;
    write(target, value);
    files.push(target);
    secrets.push({ value, where: target });
  }
  const configSecret = randomSecret(32);
  mkdirSync(dirname(tetherConfig), { recursive: true });
  writeFileSync(
    tetherConfig,
    `# tether eval: the worker's config file (hidden from commands)\napprovals:\n  secret: ${configSecret}\n`,
  );
  files.push(tetherConfig);
  secrets.push({ value: configSecret, where: tetherConfig });
  return { secrets, hidden: [...hidden, dirname(tetherConfig)], files };
}

/** Whether `path` lies in (or is) one of `roots`. */
export const under = (path: string, roots: readonly string[]): boolean =>
  roots.some((r) => path === r || path.startsWith(r.endsWith('/') ? r : `${r}/`));
