import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';

const parse = (raw: unknown): { config: ReturnType<typeof parseConfig>; notices: string[] } => {
  const notices: string[] = [];
  return { config: parseConfig(raw, 'config.yaml', (n) => notices.push(n)), notices };
};

describe("Hermes's config.yaml keys", () => {
  it.each([
    ['timeout', 240, ['default_timeout']],
    ['env_type', 'docker', ['backend']],
    ['docker_image', 'python:3.12', ['docker', 'image']],
    ['docker_env', { A: '1' }, ['docker', 'env']],
    ['docker_mount_cwd_to_workspace', true, ['docker', 'mount_cwd']],
    ['singularity_image', 'docker://python:3.12', ['singularity', 'image']],
    ['modal_image', 'python:3.12', ['modal', 'image']],
    ['daytona_image', 'python:3.12', ['daytona', 'image']],
    ['vercel_runtime', 'node24', ['vercel_sandbox', 'runtime']],
    ['ssh_host', 'box.example', ['ssh', 'host']],
    ['ssh_user', 'me', ['ssh', 'user']],
    ['ssh_port', 2222, ['ssh', 'port']],
    ['ssh_key', '~/.ssh/id_ed25519', ['ssh', 'key_path']],
  ])('terminal.%s is mapped with a notice', (key, value, to) => {
    const { config, notices } = parse({ terminal: { [key]: value } });
    let at: unknown = config.terminal;
    for (const k of to) at = (at as Record<string, unknown>)[k];
    expect(at).toEqual(value);
    expect(config.terminal).not.toHaveProperty(key);
    expect(notices).toEqual([`config.yaml: terminal.${key} is Hermes's name: read as terminal.${to.join('.')}`]);
  });

  it.each([
    ['cwd', 'tether run --cwd'],
    ['docker_volumes', 'terminal.docker.mount_cwd'],
    ['docker_forward_env', 'terminal.env_passthrough'],
    ['docker_network', 'terminal.docker.network'],
    ['docker_run_as_host_user', 'terminal.docker.user'],
    ['docker_extra_args', 'terminal.docker'],
    ['container_cpu', 'terminal.docker.cpus'],
    ['container_memory', 'terminal.docker.memory'],
    ['container_disk', 'no disk limit'],
    ['container_persistent', 'terminal.lifetime_seconds'],
    ['persistent_shell', 'no such setting'],
    ['shell_init_files', 'terminal.env'],
    ['auto_source_bashrc', 'terminal.env'],
    ['home_mode', 'no such setting'],
    ['modal_mode', 'terminal.modal'],
  ])('terminal.%s is refused naming %s', (key, names) => {
    expect(() => parse({ terminal: { [key]: 1 } })).toThrow(`config.yaml: terminal.${key} is a Hermes setting: `);
    expect(() => parse({ terminal: { [key]: 1 } })).toThrow(names);
  });

  it('refuses a Hermes key set beside its tether key rather than choosing one', () => {
    expect(() => parse({ terminal: { timeout: 10, default_timeout: 20 } })).toThrow(
      "terminal.timeout (Hermes's name) and terminal.default_timeout are both set",
    );
  });

  it.each([
    ['recursive delete', 'recursive-delete'],
    ['recursive delete (long flag)', 'recursive-delete'],
    ['world/other-writable permissions', 'system-permissions'],
    ['recursive world/other-writable (long flag)', 'system-permissions'],
    ['recursive chown to root', 'system-permissions'],
    ['recursive chown to root (long flag)', 'system-permissions'],
    ['SQL DROP', 'sql-drop'],
    ['SQL DELETE without WHERE', 'sql-delete-all'],
    ['SQL TRUNCATE', 'sql-truncate'],
    ['overwrite system config', 'overwrite-system-config'],
    ['stop/restart system service', 'service-stop'],
    ['force kill processes', 'mass-kill'],
    ['git reset --hard', 'git-reset-hard'],
    ['git force push', 'git-force-push'],
    ['git clean with force', 'git-clean'],
  ])('command_allowlist "%s" (a Hermes pattern description) reads as rule %s', (entry, rule) => {
    const { config, notices } = parse({ command_allowlist: ['npm test', entry] });
    expect(config.command_allowlist).toEqual(['npm test', rule]);
    expect(notices).toEqual([
      `config.yaml: command_allowlist: "${entry}" is a Hermes pattern description: read as tether rule ${rule}`,
    ]);
  });

  it.each(['pipe remote content to shell', 'execute remote script via process substitution'])(
    'command_allowlist "%s" is refused: its tether rule means tether could not read what runs',
    (entry) => {
      expect(() => parse({ command_allowlist: [entry] })).toThrow(
        `command_allowlist: "${entry}" is a Hermes pattern whose tether rule remote-code-exec means tether could not read what runs`,
      );
    },
  );

  it.each([
    'delete in root path',
    'format filesystem',
    'disk copy',
    'write to block device',
    'kill all processes',
    'fork bomb',
  ])('command_allowlist "%s" is refused: its tether rule is hardline', (entry) => {
    expect(() => parse({ command_allowlist: [entry] })).toThrow(
      `command_allowlist: "${entry}" is a Hermes pattern whose tether rule is hardline`,
    );
  });

  it.each([
    ['model', 'a model name'],
    ['fallback_model', 'retried'],
    ['fallback_providers', 'retried'],
    ['toolsets', '--toolsets'],
    ['agent', '--max-turns'],
    ['compression', 'compacts'],
    ['display', 'no display'],
    ['delegation', 'delegate_task'],
    ['platform_toolsets', '--toolsets'],
    ['stt', 'speech'],
    ['tts', 'speech'],
    ['skills', 'no skills'],
    ['cron', 'tether schedule'],
  ])('top-level %s is refused naming %s', (key, names) => {
    expect(() => parse({ [key]: {} })).toThrow(`config.yaml: ${key} is a Hermes setting: `);
    expect(() => parse({ [key]: {} })).toThrow(names);
  });

  it('names any other unknown section, and the section a typo meant', () => {
    expect(() => parse({ memory: { memory_enabled: true } })).toThrow('memory: unknown key (known here: ');
    expect(() => parse({ aprovals: { mode: 'off' } })).toThrow('aprovals: unknown key (did you mean approvals?)');
  });

  it("takes tether's own model: a name", () => {
    expect(parse({ model: 'local:qwen2.5-coder-1.5b' }).config.model).toBe('local:qwen2.5-coder-1.5b');
  });
});
