// Programs that run another program named in their operands, after options or a subcommand of their own: `ip netns
// exec NAME CMD`, `perf stat|record|trace CMD`, `gdb --args CMD`, `bwrap [options] CMD`, `start-stop-daemon --exec
// PATH -- ARGS`, `systemd-nspawn [options] CMD`, cmake (cmake.ts). What runs is judged as a command. Pure.
import { cmakeCommand, ctestCommand } from '../programs/build/cmake.js';
import { namesLong, optionWord } from '../engine/long-options.js';
import type { Word } from '../engine/words.js';
import { literal } from '../engine/words.js';
import type { Check } from './types.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';

/**
 * Index of the first operand after options; `arity` gives how many values an option takes (0 when not listed). With
 * `abbreviate`, an abbreviated long option (`--direc DIR`) takes the values of the listed options it abbreviates.
 */
function afterOptions(args: readonly Word[], from: number, arity: Record<string, number>, abbreviate = true): number {
  let i = from;
  while (i < args.length) {
    const t = args[i]!.text;
    if (t === '--') return i + 1;
    if (!t.startsWith('-') || t === '-') return i;
    const named = Object.hasOwn(arity, t)
      ? arity[t]!
      : Math.max(
          0,
          ...Object.keys(arity)
            .filter((o) => namesLong(t, o, abbreviate))
            .map((o) => arity[o]!),
        );
    i += 1 + (t.includes('=') ? 0 : named);
  }
  return i;
}

/** Options that take `n` values each, as an arity table. */
const taking = (n: number, options: string): Record<string, number> =>
  Object.fromEntries(names(options).map((o) => [o, n]));

/** ip [-n NS] netns exec NAME CMD..., ip vrf exec NAME CMD... */
const ip: Check = (cmd, _io, ctx) => {
  const at = cmd.args.findIndex(
    (a, i) => /^(netns|vrf)$/.test(a.text) && cmd.args[i + 1]?.text === 'exec' && !a.dynamic,
  );
  if (at >= 0 && cmd.args.length > at + 3) ctx.argv(cmd.args.slice(at + 3));
};

const PERF_ARITY = taking(
  1,
  `-e --event -o --output -p --pid -t --tid -C --cpu -c --count -F --freq -r --repeat -x -G --cgroup -I
  --interval-print -u --uid -m --mmap-pages --call-graph -d --delay --filter`,
);

const perf: Check = (cmd, _io, ctx) => {
  const sub = cmd.args.findIndex((a) => !a.text.startsWith('-'));
  if (sub < 0 || !/^(stat|record|trace|mem|c2c|kvm|lock|sched|timechart|kmem|ftrace)$/.test(cmd.args[sub]!.text))
    return;
  // perf mem/c2c/lock/sched... take their own verb (record) before the command.
  let from = sub + 1;
  if (!/^(stat|record|trace|ftrace)$/.test(cmd.args[sub]!.text)) {
    const verb = cmd.args.findIndex((a, i) => i > sub && a.text === 'record');
    if (verb < 0) return;
    from = verb + 1;
  }
  const at = afterOptions(cmd.args, from, PERF_ARITY);
  if (at < cmd.args.length) ctx.argv(cmd.args.slice(at));
};

const gdb: Check = (cmd, _io, ctx) => {
  const at = cmd.args.findIndex((a) => namesLong(a.text, '--args'));
  if (at >= 0 && cmd.args[at + 1]) ctx.argv(cmd.args.slice(at + 1));
};

const BWRAP_ARITY = {
  ...taking(
    2,
    `--bind --ro-bind --dev-bind --bind-try --ro-bind-try --dev-bind-try --symlink --setenv --chmod --file
    --bind-data --ro-bind-data --overlay-src`,
  ),
  ...taking(
    1,
    `--dev --proc --tmpfs --dir --unsetenv --chdir --uid --gid --hostname --lock-file --sync-fd --seccomp
    --add-seccomp-fd --info-fd --json-status-fd --block-fd --userns-block-fd --remount-ro --mqueue --cap-add
    --cap-drop --args --exec-label --file-label --perms --size --userns --userns2 --pidns --argv0 --tmp-overlay
    --ro-overlay`,
  ),
  '--overlay': 3,
};

const bwrap: Check = (cmd, _io, ctx) => {
  const at = afterOptions(cmd.args, 0, BWRAP_ARITY, false);
  if (at < cmd.args.length) ctx.argv(cmd.args.slice(at));
};

const NSPAWN_ARITY = taking(
  1,
  `-D --directory -i --image -M --machine -u --user --bind --bind-ro -E --setenv --chdir --network-interface -p
  --port --capability --drop-capability --private-users --overlay --tmpfs --uuid --slice --property --register
  --kill-signal --link-journal --resolv-conf --timezone --console --personality`,
);

const nspawn: Check = (cmd, _io, ctx) => {
  // -b boots the container's init instead of running a command.
  if (cmd.args.some((a) => a.text === '-b' || namesLong(a.text, '--boot'))) return;
  const at = afterOptions(cmd.args, 0, NSPAWN_ARITY);
  if (at < cmd.args.length) ctx.argv(cmd.args.slice(at));
};

/** start-stop-daemon --start --exec PATH [--startas PATH] -- ARGS: PATH runs with ARGS. */
const startStopDaemon: Check = (cmd, _io, ctx) => {
  if (!cmd.args.some((a) => a.text === '-S' || namesLong(a.text, '--start'))) return;
  const valueOf = (opts: string[]): Word | undefined => {
    for (let i = 0; i < cmd.args.length; i += 1) {
      const t = cmd.args[i]!.text;
      if (t === '--') break;
      if (t === '--start') continue; // its own option, not an abbreviation of --startas
      for (const o of opts) {
        const m = t.startsWith('--') || t === o ? optionWord(t, o) : undefined;
        if (m) return 'attached' in m ? { ...cmd.args[i]!, text: m.attached } : cmd.args[i + 1];
      }
    }
    return undefined;
  };
  const program = valueOf(['--startas', '-a']) ?? valueOf(['--exec', '-x']);
  if (!program) return;
  const dd = cmd.args.findIndex((a) => a.text === '--');
  ctx.argv([program.dynamic ? program : literal(program.text), ...(dd < 0 ? [] : cmd.args.slice(dd + 1))]);
};

judges(import.meta.url, {
  ip,
  perf,
  gdb,
  bwrap,
  'systemd-nspawn': nspawn,
  'start-stop-daemon': startStopDaemon,
  cmake: (cmd, _io, ctx) => cmakeCommand(cmd, ctx),
  ctest: (cmd, _io, ctx) => ctestCommand(cmd, ctx),
});
