// Where credentials live in a home directory, hidden from sandboxed commands by default: keys, cloud and registry
// logins, forge tokens, keyrings, browser profiles, shell histories and other agents' homes. Worker-only.
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Relative to a home directory. A path that does not exist is skipped when the sandbox is made. */
export const CREDENTIAL_PATHS: readonly string[] = [
  // Keys and signing
  '.ssh',
  '.gnupg',
  '.pki',
  '.age',
  '.config/sops',
  '.local/share/keyrings',
  '.password-store',
  '.config/op',
  '.config/Bitwarden CLI',
  // Clouds and clusters
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.oci',
  '.config/doctl',
  '.ibmcloud',
  '.databrickscfg',
  '.s3cfg',
  '.boto',
  '.config/rclone',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.fly',
  '.config/vercel',
  '.config/netlify',
  '.config/heroku',
  // Registries, forges and package managers
  '.docker/config.json',
  '.git-credentials',
  '.config/git/credentials',
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.config/helm/repositories.yaml',
  '.pgpass',
  '.my.cnf',
  // Shell and REPL histories (tokens typed on a command line end up there)
  '.bash_history',
  '.zsh_history',
  '.history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.lesshst',
  // Browser profiles (cookies and saved passwords)
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  // Other agents' homes: their keys, sessions, permissions and MCP server lists
  '.claude',
  '.claude.json',
  '.codex',
  '.hermes',
  '.gemini',
  '.cursor',
  '.aider',
  '.continue',
  '.codeium',
  '.config/opencode',
  '.config/github-copilot',
  '.config/goose',
  '.openhands',
  '.config/claude',
];

/**
 * The homes whose credential paths are hidden: the worker's own, and — where the worker may read them (as root) —
 * /root and every directory under /home.
 */
function homes(): string[] {
  const out = new Set([homedir()]);
  if (process.getuid?.() === 0) {
    out.add('/root');
    try {
      for (const name of readdirSync('/home')) out.add(join('/home', name));
    } catch {
      // no /home here
    }
  }
  return [...out];
}

const under = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * Every credential path of every home, except those a path in `expose` covers. An exposed path inside a hidden one
 * (~/.ssh/known_hosts) leaves the rest hidden: the sandbox binds it back on top (sandbox.ts).
 */
export function defaultHiddenPaths(expose: readonly string[]): string[] {
  return homes()
    .flatMap((home) => CREDENTIAL_PATHS.map((p) => join(home, p)))
    .filter((p) => !expose.some((e) => under(p, e)));
}
