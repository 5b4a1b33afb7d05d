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

/**
 * Variables that move a tool's credentials elsewhere, and what to hide where they point: `.` the path itself (a
 * file, or a directory that is all credentials), else the names inside that directory. A list variable
 * (KUBECONFIG) holds several paths.
 */
const MOVED: Readonly<Record<string, readonly string[]>> = {
  AWS_SHARED_CREDENTIALS_FILE: ['.'],
  AWS_CONFIG_FILE: ['.'],
  GH_CONFIG_DIR: ['.'],
  GLAB_CONFIG_DIR: ['.'],
  KUBECONFIG: ['.'],
  DOCKER_CONFIG: ['config.json'],
  GOOGLE_APPLICATION_CREDENTIALS: ['.'],
  CLOUDSDK_CONFIG: ['.'],
  AZURE_CONFIG_DIR: ['.'],
  OCI_CLI_CONFIG_FILE: ['.'],
  DATABRICKS_CONFIG_FILE: ['.'],
  BOTO_CONFIG: ['.'],
  RCLONE_CONFIG: ['.'],
  NETRC: ['.'],
  NPM_CONFIG_USERCONFIG: ['.'],
  npm_config_userconfig: ['.'],
  PIP_CONFIG_FILE: ['.'],
  PGPASSFILE: ['.'],
  TF_CLI_CONFIG_FILE: ['.'],
  VAULT_CONFIG_PATH: ['.'],
  GIT_CONFIG_GLOBAL: ['.'],
  GNUPGHOME: ['.'],
  PASSWORD_STORE_DIR: ['.'],
  SOPS_AGE_KEY_FILE: ['.'],
  CARGO_HOME: ['credentials', 'credentials.toml'],
  GRADLE_USER_HOME: ['gradle.properties'],
  HF_HOME: ['token', 'stored_tokens'],
  HF_TOKEN_PATH: ['.'],
  SSH_AUTH_SOCK: ['.'],
  KRB5CCNAME: ['.'],
  CLAUDE_CONFIG_DIR: ['.'],
  CODEX_HOME: ['.'],
  HERMES_HOME: ['.'],
};

/** The base directories of the XDG variables, and the home-relative prefix each replaces. */
const XDG: Readonly<Record<string, string>> = {
  XDG_CONFIG_HOME: '.config/',
  XDG_DATA_HOME: '.local/share/',
  XDG_CACHE_HOME: '.cache/',
};

/**
 * Credential paths where the worker's environment points tools (`$XDG_CONFIG_HOME/gh`, `$AWS_SHARED_CREDENTIALS_FILE`,
 * `$KUBECONFIG`...). Only absolute paths at least two levels deep: a variable set to `/` or `/etc` hides nothing.
 */
export function movedCredentialPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const usable = (p: string): boolean => p.startsWith('/') && p.split('/').filter(Boolean).length >= 2;
  const out: string[] = [];
  for (const [name, inside] of Object.entries(MOVED)) {
    const value = env[name];
    if (!value) continue;
    for (const raw of value.split(':')) {
      const p = name === 'KRB5CCNAME' ? raw.replace(/^FILE$/, '') : raw;
      if (!usable(p)) continue;
      for (const i of inside) out.push(i === '.' ? p : join(p, i));
    }
  }
  for (const [name, prefix] of Object.entries(XDG)) {
    const base = env[name];
    if (!base || !usable(base)) continue;
    for (const c of CREDENTIAL_PATHS) if (c.startsWith(prefix)) out.push(join(base, c.slice(prefix.length)));
  }
  return out;
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
    ...movedCredentialPaths(),
  ].filter((p) => !expose.some((e) => under(p, e)));
}
