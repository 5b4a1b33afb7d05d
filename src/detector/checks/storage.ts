// Storage stacks beyond mkfs: LVM, ZFS, RAID (mdadm), LUKS, secure erase (hdparm, nvme), swap, btrfs, device-mapper,
// forced unmounts. Listing and status commands stay ordinary. Pure.
import { parseFlags } from '../engine/argv.js';
import { classifyPath } from '../engine/paths.js';
import { always, show, when, whenArg, type Check } from './types.js';
import { judges } from './registry.js';

/** A tool whose subcommand (first operand) decides: `zpool destroy`, `zfs rollback`, `btrfs subvolume delete`. */
const bySubcommand = (pattern: RegExp, depth = 1): Check =>
  when('storage-destroy', (w) =>
    w
      .filter((t) => !t.startsWith('-'))
      .slice(0, depth)
      .some((t) => pattern.test(t)),
  );

/** An option that destroys (mdadm --zero-superblock, hdparm --security-erase, cryptsetup luksKillSlot). */
const byOption = (pattern: RegExp): Check => whenArg('storage-destroy', pattern);

/** lvresize/lvreduce shrinking (-L -20G, --size -5G) loses what is beyond the new end. */
const lvShrink: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-L', '--size', '-l', '--extents']);
  const size = f.values.get('-L') ?? f.values.get('--size') ?? f.values.get('-l') ?? f.values.get('--extents') ?? '';
  if (cmd.name === 'lvreduce' || size.startsWith('-')) ctx.add('storage-destroy', show(cmd));
};

/** umount -f / -l, or of the root or a system directory. */
const umount: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-t', '-O']);
  const forced = [...'fla'].some((c) => f.short.has(c)) || ['--force', '--lazy', '--all'].some((l) => f.long.has(l));
  const system = f.operands.some((o) => ['root', 'system-dir', 'home'].includes(classifyPath(o)));
  if (forced || system) ctx.add('storage-destroy', show(cmd));
};

const cryptsetup: Check = (cmd, _io, ctx) => {
  const sub = cmd.args.find((a) => !a.text.startsWith('-'))?.text ?? '';
  if (/^(luksFormat|erase|luksErase|luksKillSlot|luksRemoveKey|reencrypt|convert|repair)$/.test(sub))
    ctx.add(sub === 'luksFormat' ? 'format-filesystem' : 'storage-destroy', show(cmd));
  if (cmd.args.some((a) => a.text === '--type') && cmd.args.some((a) => a.text === 'plain') && sub === 'open')
    ctx.add('format-filesystem', show(cmd));
};

judges(
  import.meta.url,
  {
    'lvremove vgremove pvremove vgreduce pvcreate vgcreate sg_format sg_sanitize': always('storage-destroy'),
    'lvreduce lvresize': lvShrink,
    zpool: bySubcommand(/^(destroy|labelclear|create|remove|detach|split|replace|reguid)$/),
    zfs: bySubcommand(/^(destroy|rollback|promote|rename)$/),
    mdadm: byOption(/^(--zero-superblock|--stop|-S|--remove|-r|--fail|-f|--create|-C|--grow|-G|--build|-B)$/),
    cryptsetup,
    hdparm: byOption(
      /^--(security-erase|security-erase-enhanced|security-set-pass|security-disable|user-master|trim-sector-ranges|write-sector|make-bad-sector|dco-restore|yes-i-know-what-i-am-doing)/,
    ),
    nvme: bySubcommand(/^(format|sanitize|delete-ns|detach-ns)$/),
    // swapoff takes memory away from everything running; swapoff of a project image file is still the machine's swap.
    swapoff: always('storage-destroy'),
    btrfs: bySubcommand(/^(delete|remove|resize|zero-log|rescue)$/, 3),
    xfs_repair: byOption(/^-L$/),
    umount,
    dmsetup: bySubcommand(/^(remove|remove_all|wipe_table|clear|reload)$/),
    zramctl: byOption(/^(-r|--reset)$/),
  },
  { claims: true },
);
