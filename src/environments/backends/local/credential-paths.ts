// Where credentials live, hidden from sandboxed commands by default: in a home directory keys, cloud and registry
// logins, forge tokens, keyrings, browser profiles, start-up files, histories and other agents' homes; on the
// machine its password hashes and private keys. Worker-only.
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
  // Shell start-up files (exported tokens live there; sandboxed shells source none of them) and dotenv files
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.config/fish',
  '.env',
  '.envrc',
  // Logins of tools whose configuration holds a token
  '.Xauthority',
  '.curlrc',
  '.wgetrc',
  '.terraformrc',
  '.pulumi',
  '.config/configstore',
  '.cloudflared',
  '.wrangler',
  '.config/.wrangler',
  '.config/ngrok',
  '.ngrok2',
  '.supabase',
  '.railway',
  '.config/stripe',
  '.expo',
  '.circleci/cli.yml',
  '.config/hcloud',
  '.config/linode-cli',
  '.config/tea',
  '.jira.d',
  // tether's own default home (TETHER_HOME may point elsewhere), its Temporal CLI profiles, and the remote
  // sandboxes' logins
  '.tether',
  '.config/temporalio',
  '.modal.toml',
  '.daytona',
  '.config/daytona',
  '.vercel',
  '.local/share/com.vercel.cli',
  '.singularity',
  '.apptainer',
  // Model and editor keys
  '.huggingface',
  '.cache/huggingface/token',
  '.config/huggingface',
  '.config/anthropic',
  '.config/openai',
  '.aider.conf.yml',
  '.config/Code/User/globalStorage',
  '.vscode-server/data/User/globalStorage',
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
  '.rediscli_history',
  '.irb_history',
  '.viminfo',
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
 * Secrets of the machine itself, readable by a worker running as root (capabilities dropped, root still owns them):
 * password hashes, SSH host keys, TLS private keys, Kerberos keytabs, Wi-Fi and VPN secrets.
 */
export const MACHINE_SECRETS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssl/private',
  '/etc/letsencrypt',
  '/etc/krb5.keytab',
  '/etc/NetworkManager/system-connections',
  '/etc/wpa_supplicant',
  '/etc/wireguard',
  '/etc/ipsec.secrets',
];

/** /etc/ssh's private host keys (the public ones and ssh_config stay readable). */
function sshHostKeys(): string[] {
  try {
    return readdirSync('/etc/ssh')
      .filter((n) => /^ssh_host_.*_key$/.test(n))
      .map((n) => join('/etc/ssh', n));
  } catch {
    return [];
  }
}

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
  return [
    ...homes().flatMap((home) => CREDENTIAL_PATHS.map((p) => join(home, p))),
    ...MACHINE_SECRETS,
    ...sshHostKeys(),
  ].filter((p) => !expose.some((e) => under(p, e)));
}
