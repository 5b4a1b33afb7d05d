// Hermes agent's config.yaml keys: mapped onto tether's (each with a one-line notice) or refused with a message
// naming the tether setting, before the configuration is checked. Pure.
import { isOpaqueRule } from '../common/rules.js';

/** A Hermes `terminal.*` key: where it goes in tether (a dotted path under terminal), or why it does not. */
type KeyRule = { to: string[]; convert?: (v: unknown) => unknown } | { refuse: string };

const TERMINAL: Readonly<Record<string, KeyRule>> = {
  timeout: { to: ['default_timeout'] },
  env_type: { to: ['backend'] },
  docker_image: { to: ['docker', 'image'] },
  docker_env: { to: ['docker', 'env'] },
  docker_mount_cwd_to_workspace: { to: ['docker', 'mount_cwd'] },
  singularity_image: { to: ['singularity', 'image'] },
  modal_image: { to: ['modal', 'image'] },
  daytona_image: { to: ['daytona', 'image'] },
  vercel_runtime: { to: ['vercel_sandbox', 'runtime'] },
  ssh_host: { to: ['ssh', 'host'] },
  ssh_user: { to: ['ssh', 'user'] },
  ssh_port: { to: ['ssh', 'port'] },
  ssh_key: { to: ['ssh', 'key_path'] },
  cwd: {
    refuse:
      "a run's working directory is `tether run --cwd` (default: where tether is started); for SSH, terminal.ssh.cwd",
  },
  docker_volumes: { refuse: 'tether mounts nothing from the host but the task directory: terminal.docker.mount_cwd' },
  docker_forward_env: {
    refuse:
      "tether forwards the worker's variables to every backend alike, only those named: list them in terminal.env_passthrough",
  },
  docker_network: { refuse: 'use terminal.docker.network (a Docker network mode; default none)' },
  docker_run_as_host_user: { refuse: 'use terminal.docker.user ("uid:gid")' },
  docker_extra_args: {
    refuse:
      'tether builds the container from typed settings only: see terminal.docker (cpus, memory, cap_add, read_only, ...)',
  },
  container_cpu: { refuse: 'set it per backend: terminal.docker.cpus, terminal.modal.cpu or terminal.daytona.cpu' },
  container_memory: {
    refuse: 'set it per backend: terminal.docker.memory, terminal.modal.memory_mib or terminal.daytona.memory_gib',
  },
  container_disk: { refuse: 'tether has no disk limit setting' },
  container_persistent: {
    refuse: "tether keeps a task's environment for terminal.lifetime_seconds after its last command, then removes it",
  },
  persistent_shell: { refuse: 'tether has no such setting (see docs/coming-from-hermes.md)' },
  shell_init_files: { refuse: 'tether sources no start-up files: put variables in terminal.env' },
  auto_source_bashrc: { refuse: 'tether sources no start-up files: put variables in terminal.env' },
  home_mode: { refuse: 'tether has no such setting' },
  modal_mode: { refuse: 'see terminal.modal' },
};

/** Hermes top-level sections that tether configures elsewhere. */
const TOP_LEVEL: Readonly<Record<string, string>> = {
  model:
    "tether's model: is a model name (model: gpt-4o-mini, or local:qwen2.5-coder-1.5b), not a section; its server is OPENAI_BASE_URL / OPENAI_API_KEY",
  fallback_model: 'tether has no fallback model; the model call is retried by Temporal',
  fallback_providers: 'tether has no fallback providers; the model call is retried by Temporal',
  toolsets: 'toolsets are chosen per run: `tether run --toolsets` / `--disable`',
  agent: 'per run: `tether run --max-turns` (default 50)',
  compression: 'tether compacts long conversations by itself (per-run compaction settings), not in config.yaml',
  display: 'tether has no display settings',
  delegation: 'delegate_task has no config.yaml section in tether',
  platform_toolsets: 'tether has no messaging platforms; toolsets are chosen per run with --toolsets',
  stt: 'tether has no speech tools',
  tts: 'tether has no speech tools',
  skills: 'tether has no skills',
  cron: 'schedules are made with `tether schedule`',
};

/** Hermes's dangerous-pattern descriptions (what its command_allowlist holds) → tether rule ids; null: hardline. */
const PATTERNS: Readonly<Record<string, string | null>> = {
  'recursive delete': 'recursive-delete',
  'recursive delete (long flag)': 'recursive-delete',
  'world/other-writable permissions': 'system-permissions',
  'recursive world/other-writable (long flag)': 'system-permissions',
  'recursive chown to root': 'system-permissions',
  'recursive chown to root (long flag)': 'system-permissions',
  'sql drop': 'sql-drop',
  'sql delete without where': 'sql-delete-all',
  'sql truncate': 'sql-truncate',
  'overwrite system config': 'overwrite-system-config',
  'stop/restart system service': 'service-stop',
  'force kill processes': 'mass-kill',
  'pipe remote content to shell': 'remote-code-exec',
  'execute remote script via process substitution': 'remote-code-exec',
  'git reset --hard': 'git-reset-hard',
  'git force push': 'git-force-push',
  'git clean with force': 'git-clean',
  'delete in root path': null,
  'format filesystem': null,
  'disk copy': null,
  'write to block device': null,
  'kill all processes': null,
  'fork bomb': null,
};

interface HermesTranslation {
  value: unknown;
  notices: string[];
  refused: string[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function setPath(target: Record<string, unknown>, path: string[], value: unknown): boolean {
  let at = target;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(at[key])) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (Object.hasOwn(at, last)) return false;
  at[last] = value;
  return true;
}

function translateTerminal(terminal: Record<string, unknown>, out: HermesTranslation): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(terminal)) if (!Object.hasOwn(TERMINAL, key)) next[key] = value;
  for (const [key, value] of Object.entries(terminal)) {
    if (!Object.hasOwn(TERMINAL, key)) continue;
    const rule = TERMINAL[key]!;
    if ('refuse' in rule) {
      out.refused.push(`terminal.${key} is a Hermes setting: ${rule.refuse}`);
    } else if (setPath(next, rule.to, value)) {
      out.notices.push(`terminal.${key} is Hermes's name: read as terminal.${rule.to.join('.')}`);
    } else {
      out.refused.push(
        `terminal.${key} (Hermes's name) and terminal.${rule.to.join('.')} are both set: keep terminal.${rule.to.join('.')}`,
      );
    }
  }
  return next;
}

function translateAllowlist(entries: unknown[], out: HermesTranslation): unknown[] {
  return entries.map((entry) => {
    if (typeof entry !== 'string') return entry;
    const key = entry.trim().toLowerCase();
    if (!Object.hasOwn(PATTERNS, key)) return entry;
    const rule = PATTERNS[key];
    if (rule === null || rule === undefined) {
      out.refused.push(
        `command_allowlist: "${entry}" is a Hermes pattern whose tether rule is hardline: it is never allowed (see tether approval rules)`,
      );
      return entry;
    }
    if (isOpaqueRule(rule)) {
      out.refused.push(
        `command_allowlist: "${entry}" is a Hermes pattern whose tether rule ${rule} means tether could not read what runs, so allowing it would allow any such command: list the exact commands to allow instead`,
      );
      return entry;
    }
    out.notices.push(`command_allowlist: "${entry}" is a Hermes pattern description: read as tether rule ${rule}`);
    return rule;
  });
}

/** Maps Hermes keys in a parsed config.yaml; what cannot be mapped is refused, naming the tether setting. */
export function translateHermes(raw: unknown): HermesTranslation {
  const out: HermesTranslation = { value: raw, notices: [], refused: [] };
  if (!isRecord(raw)) return out;
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    // tether's own `model:` is a name; Hermes's is a section.
    if (key === 'model' && typeof value === 'string') next[key] = value;
    else if (Object.hasOwn(TOP_LEVEL, key)) out.refused.push(`${key} is a Hermes setting: ${TOP_LEVEL[key]!}`);
    else if (key === 'terminal' && isRecord(value)) next[key] = translateTerminal(value, out);
    else if (key === 'command_allowlist' && Array.isArray(value)) next[key] = translateAllowlist(value, out);
    else next[key] = value;
  }
  out.value = next;
  return out;
}
