// Killers of processes the task did not start and others depend on: every tmux session (kill-server, kill-session
// -a), screen sessions quit without a name or by a computed list, a shared database or cache server shut down
// (redis-cli shutdown, pg_ctl stop of a data directory outside the project, mysqladmin shutdown), every container
// (podman kill --all), the user's login session (launchctl bootout gui/UID, loginctl terminate-user), a user's
// application quit (osascript ... to quit), WSL shut down, the parent process ($PPID: the agent's own shell or
// worker), and the session manager restarted (systemd-logind, display managers). Pure.
import { classifyPath } from '../engine/paths.js';
import type { Argv } from '../engine/argv.js';
import { show, when, whenArg, type Check, type CheckContext } from './types.js';
import { judges } from './registry.js';
import type { ContainerCheck } from '../programs/containers/call.js';
import type { SystemdCheck } from '../programs/systemd/call.js';

const mass = (cmd: Argv, ctx: CheckContext, why: string): void => ctx.add('mass-kill', `${show(cmd)} (${why})`);

/** tmux kill-server, kill-session -a, kill-window -a, and a kill of a session named at run time. */
export function tmuxKills(words: string[], cmd: Argv, ctx: CheckContext): void {
  const [verb, ...rest] = words;
  if (verb === 'kill-server') mass(cmd, ctx, 'every tmux session');
  if (/^(kill-session|kill-ses|kill-window|killw)$/.test(verb ?? '') && rest.some((w) => /^-[a-zA-Z]*a/.test(w)))
    mass(cmd, ctx, 'every other tmux session');
}

/** screen -X quit with no session named, or sessions listed at run time (`xargs -I{} screen -S {} -X quit`). */
export function screenKills(cmd: Argv, ctx: CheckContext): void {
  const words = cmd.args.map((a) => a.text);
  const x = words.indexOf('-X');
  if (x < 0 || !/^(quit|kill)$/.test(words[x + 1] ?? '')) return;
  const s = words.indexOf('-S');
  const session = s >= 0 ? cmd.args[s + 1] : undefined;
  if (!session) mass(cmd, ctx, 'a screen session not named');
  else if (session.dynamic || session.text === '{}' || cmd.viaXargs)
    mass(cmd, ctx, 'screen sessions listed at run time');
}

const pgCtl: Check = (cmd, _io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  if (!words.some((w) => /^(stop|restart|kill)$/.test(w))) return;
  const d = cmd.args.find((_, i) => i > 0 && /^(-D|--pgdata)$/.test(words[i - 1]!));
  // A database the project keeps in its own directory is the task's.
  if (d && !d.dynamic && classifyPath(d, ctx.where) === 'inside') return;
  ctx.add('service-stop', `${show(cmd)} (stops a PostgreSQL server)`);
};

/** `podman kill --all`, `nerdctl container stop -a`: every container on the machine, not only this task's. */
export const everyContainerStopped: ContainerCheck = ({ group, verb, rest }, cmd, _io, ctx) => {
  const all = rest.some((w) => w.text === '--all' || w.text === '-a');
  if (all && (group === undefined || group === 'container') && /^(kill|stop|pause)$/.test(verb ?? ''))
    mass(cmd, ctx, 'every container');
};

/** The login and display managers: restarting them ends every session. */
const SESSION_SERVICES =
  /^(systemd-logind|display-manager|gdm3?|sddm|lightdm|xdm|getty@.*|user@.*|dbus|dbus-broker)(\.service)?$/;

/** Every login session ended: their services restarted or stopped (`systemctl restart gdm`), `loginctl terminate-user`. */
export const sessionsEnded: SystemdCheck = ({ verb, targets }, cmd, _io, ctx) => {
  if (
    /^(restart|stop|kill|try-restart|reload-or-restart)$/.test(verb ?? '') &&
    targets.some((w) => SESSION_SERVICES.test(w))
  )
    mass(cmd, ctx, 'ends every login session');
  if (/^(terminate-user|kill-user|terminate-session|kill-session|terminate-seat|lock-sessions)$/.test(verb ?? ''))
    mass(cmd, ctx, 'login sessions');
};

/** kill $PPID: the parent is the agent's own shell or the worker. */
export function killsParent(cmd: Argv, ctx: CheckContext): void {
  if (cmd.args.some((a) => /^"?\$\{?PPID\}?"?$/.test(a.text) || /^\$\(\s*ps\s+-o\s+ppid/.test(a.text)))
    mass(cmd, ctx, 'the parent process: the shell or program that runs the command');
}

judges(import.meta.url, {
  'redis-cli valkey-cli keydb-cli': whenArg('service-stop', /^shutdown$/i, 'shuts the Redis server down'),
  'pg_ctl pg_ctlcluster': pgCtl,
  'mysqladmin mariadb mariadb-admin': whenArg('service-stop', /^shutdown$/, 'shuts the MySQL server down'),
  launchctl: when(
    'mass-kill',
    (w) => /^(bootout|remove)$/.test(w[0] ?? '') && w.slice(1).some((t) => /^(gui|user|login)\/[^/]+\/?$/.test(t)),
    "the user's whole login session",
  ),
  osascript: when(
    'mass-kill',
    (w) =>
      /tell\s+application\s+("[^"]+"|\S+)\s+to\s+(quit|close)\b|\bquit\s+app(lication)?\b|System Events"?\s+to\s+(log out|shut down|restart)/i.test(
        w.join(' '),
      ),
    "quits a user's application",
  ),
  'wsl wsl.exe': whenArg('mass-kill', /^(--shutdown|--terminate|-t|--unregister)$/, 'WSL distributions'),
  'kill pkill': (cmd, _io, ctx) => killsParent(cmd, ctx),
});
