// How systemd's control commands read (systemctl, loginctl): options with their values skipped, then the verb and
// what it acts on, so that `systemctl -H host stop sshd` and `loginctl --no-ask-password terminate-user bob` read as
// what they do. The one reader for every judgement of them (systemd/checks.ts lists them). Pure.
import type { CheckContext, Io } from '../../checks/types.js';
import { parseFlags, type Argv } from '../../engine/argv.js';
import { names } from '../../engine/names.js';

/** Options of systemctl and loginctl that take a value. */
const VALUED = names(`-H --host -M --machine -t --type -p --property -s --signal --state --root --job-mode --kill-whom
  --what -n --lines -o --output --when`);

export interface SystemdCall {
  /** The verb (`stop`, `enable`, `terminate-user`...). */
  verb?: string;
  /** What it acts on: units, users, sessions. */
  targets: string[];
  /** `--user` (or `--global`, every user's): a user's own service manager, not the machine's. */
  user: boolean;
}

export function systemdCall(cmd: Argv): SystemdCall {
  const f = parseFlags(cmd.args, VALUED);
  const [verb, ...targets] = f.operands.map((o) => o.text);
  return { ...(verb ? { verb } : {}), targets, user: f.long.has('--user') || f.long.has('--global') };
}

/** A judgement of one systemctl or loginctl command, kept with its threat class. */
export type SystemdCheck = (call: SystemdCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
