// The `terminal.ssh` config section, its availability check and the resolved connection options. Worker-only.
import { accessSync, constants as fsConstants, existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    // userInfo() throws when the uid has no passwd entry (some containers).
    return process.env.USER ?? 'root';
  }
}

export const sshSettingsSchema = z.strictObject({
  /** Required when the backend is selected; reported by unavailable() rather than by the schema. */
  host: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).default(22),
  user: z.string().min(1).default(localUser),
  /** Private key file; without it the first of ~/.ssh/id_ed25519, id_ecdsa, id_rsa that exists. */
  key_path: z.string().min(1).optional(),
  /** Name of the environment variable that holds the key's passphrase. */
  passphrase_env: z.string().min(1).optional(),
  /** ssh-agent socket; default SSH_AUTH_SOCK. An empty string turns the agent off. */
  agent: z.string().optional(),
  known_hosts: z.string().min(1).default('~/.ssh/known_hosts'),
  host_key_check: z.enum(['strict', 'accept-new', 'off']).default('strict'),
  keepalive_seconds: z.number().min(0).default(15),
  keepalive_count_max: z.number().int().min(0).default(3),
  connect_timeout_seconds: z.number().positive().default(20),
  /** Where commands start; default the remote user's home (what `pwd` prints on login). */
  cwd: z.string().min(1).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string()).default({}),
});

export type SshSettings = z.infer<typeof sshSettingsSchema>;

/** Settings with the defaults that depend on this machine filled in, ready to connect. */
export interface SshTarget {
  host: string;
  port: number;
  user: string;
  keyPath: string | undefined;
  passphrase: string | undefined;
  agent: string | undefined;
  knownHosts: string;
  hostKeyCheck: SshSettings['host_key_check'];
  keepaliveMs: number;
  keepaliveCountMax: number;
  connectTimeoutMs: number;
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

const DEFAULT_IDENTITIES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

function defaultIdentity(): string | undefined {
  return DEFAULT_IDENTITIES.map((name) => join(homedir(), '.ssh', name)).find((p) => existsSync(p));
}

export function sshTarget(settings: SshSettings): SshTarget {
  const agent = settings.agent ?? process.env.SSH_AUTH_SOCK;
  return {
    host: settings.host ?? '',
    port: settings.port,
    user: settings.user,
    keyPath: settings.key_path !== undefined ? expandHome(settings.key_path) : defaultIdentity(),
    passphrase: settings.passphrase_env !== undefined ? process.env[settings.passphrase_env] : undefined,
    agent: agent === '' ? undefined : agent,
    knownHosts: expandHome(settings.known_hosts),
    hostKeyCheck: settings.host_key_check,
    keepaliveMs: settings.keepalive_seconds * 1000,
    keepaliveCountMax: settings.keepalive_count_max,
    connectTimeoutMs: settings.connect_timeout_seconds * 1000,
  };
}

/** `user@host:port`, the way every message names the target. */
export function targetName(t: Pick<SshTarget, 'user' | 'host' | 'port'>): string {
  return `${t.user}@${t.host}:${t.port}`;
}

/** Connections are shared by everything that logs in the same way and trusts the host for the same reason. */
export function poolKey(t: SshTarget): string {
  return [targetName(t), t.keyPath ?? '', t.agent ?? '', t.knownHosts, t.hostKeyCheck].join('|');
}

export function sshUnavailable(settings: SshSettings): string | undefined {
  if (settings.host === undefined) return 'terminal.ssh.host is not set';
  if (settings.passphrase_env !== undefined && process.env[settings.passphrase_env] === undefined) {
    return `the environment variable ${settings.passphrase_env} (terminal.ssh.passphrase_env) is not set`;
  }
  const target = sshTarget(settings);
  if (settings.key_path !== undefined) {
    try {
      accessSync(target.keyPath ?? '', fsConstants.R_OK);
    } catch (err) {
      return `cannot read terminal.ssh.key_path ${target.keyPath}: ${(err as Error).message}`;
    }
  }
  if (target.keyPath === undefined && target.agent === undefined) {
    return 'no way to log in: set terminal.ssh.key_path, or SSH_AUTH_SOCK / terminal.ssh.agent for an ssh-agent';
  }
  return undefined;
}
