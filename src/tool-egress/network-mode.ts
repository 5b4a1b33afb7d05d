// What the tools that reach the network from the worker (web_extract, web_search, the browser, vision_analyze's
// image URLs) may do under the run's terminal settings: go host by host through the egress gate, reach every host
// the lists do not deny without asking, or nothing. One row per terminal.local.sandbox.network mode. Worker-only.
import { platform } from 'node:os';
import { currentConfig } from '../config/current.js';
import type { TerminalConfig, TetherConfig } from '../config/config.js';
import { LocalSettingsSchema, type NetworkMode } from '../environments/backends/local/settings.js';

export type ToolNetwork =
  /** Every host through the egress gate: allow, deny, ask (the default). */
  | { kind: 'gate' }
  /** The gate's deny list and reserved addresses still hold; every other host is allowed without asking, recorded. */
  | { kind: 'open'; by: string }
  /** No request leaves: the reason, for the model. */
  | { kind: 'none'; why: string };

/**
 * What a command of the local sandbox can reach decides what the worker's tools may: never more. `direct` and `host`
 * give commands every host without asking, so the tools are not asked about hosts either; `deny` still holds for
 * them (it costs nothing, and the person wrote it).
 */
const BY_MODE: Record<`${Exclude<NetworkMode, false>}` | 'false', ToolNetwork> = {
  proxy: { kind: 'gate' },
  direct: { kind: 'open', by: 'terminal.local.sandbox.network: direct (every host, nobody asked)' },
  host: { kind: 'open', by: 'terminal.local.sandbox.network: host (every host, nobody asked)' },
  false: {
    kind: 'none',
    why: "terminal.local.sandbox.network is false: this run's commands and tools reach no network (a person can set it to proxy in config.yaml)",
  },
};

const GATE: ToolNetwork = { kind: 'gate' };
const parsed = new WeakMap<TerminalConfig, ToolNetwork>();

/**
 * The tools' network for a run on `backend` (the run's override, else terminal.backend). Another backend, or the local
 * one with its sandbox off or off Linux: through the gate all the same, since egress.allow and egress.deny are the
 * person's statement of where a run may go, whatever runs its commands.
 */
export function toolNetwork(
  backend: string | undefined,
  terminal: TerminalConfig = currentConfig().terminal,
): ToolNetwork {
  if ((backend ?? terminal.backend) !== 'local' || platform() !== 'linux') return GATE;
  let found = parsed.get(terminal);
  if (!found) {
    const local = LocalSettingsSchema.safeParse((terminal as Record<string, unknown>).local ?? {});
    // A section that does not parse stopped the worker at start; here the strictest choice that still asks.
    const sandbox = local.success ? local.data.sandbox : undefined;
    found = sandbox?.enabled ? BY_MODE[String(sandbox.network) as keyof typeof BY_MODE] : GATE;
    parsed.set(terminal, found);
  }
  return found;
}

/** Start-up warnings for settings the web tools no longer read (the egress policy decides for them). */
export function toolNetworkWarnings(config: Pick<TetherConfig, 'web' | 'browser'>): string[] {
  return (['web', 'browser'] as const)
    .filter((section) => config[section].allow_private)
    .map(
      (section) =>
        `${section}.allow_private is no longer read: the web tools and the browser reach hosts through the egress policy (terminal.local.sandbox.egress: a host on a private network once it is allowed or approved, this machine never); remove the setting`,
    );
}
