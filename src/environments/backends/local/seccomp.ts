// A seccomp filter for sandboxed commands. The kernel's key management calls (add_key, request_key, keyctl) fail
// with EPERM: keyrings belong to the user, not to a namespace bwrap can make, so without it a command shares the
// worker's user keyring (and can read or plant keys there). Giving a file a set-user-ID or set-group-ID bit fails
// too: the task directory is this machine's, and a setuid copy of a shell made there by a worker running as root
// would make anyone who runs it root outside the sandbox. Built as raw classic BPF, the form bwrap's --seccomp
// reads. Worker-only.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tetherHome } from '../../../config/home.js';

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;

/** The set-user-ID and set-group-ID bits: a file made with them in the task directory runs as its owner outside. */
const SETID_BITS = 0o6000;
/** open's flags that take a mode: O_CREAT, and O_TMPFILE's own bit (the same values on x86-64 and arm64). */
const TAKES_MODE = 0o100 | 0o20000000;

/** A call refused when the mode it gives a file has a set-ID bit (for open calls, only when they create). */
interface ModeCall {
  nr: number;
  mode: number;
  flags?: number;
}

/** The calls refused, and the audit architecture their numbers belong to. */
const ARCHES: Readonly<
  Record<string, { audit: number; blocked: readonly number[]; modes: readonly ModeCall[]; x32?: boolean }>
> = {
  // add_key 248, request_key 249, keyctl 250, openat2 437 (its mode is behind a pointer), io_uring_setup 425,
  // io_uring_enter 426, io_uring_register 427 (its operations create files with no call this filter sees); x32
  // numbers (bit 30 set) are refused as a whole. chmod 90, fchmod 91, fchmodat 268, fchmodat2 452, creat 85, open 2, openat 257,
  // mknod 133, mknodat 259.
  x64: {
    audit: 0xc000003e,
    blocked: [248, 249, 250, 437, 425, 426, 427],
    modes: [
      { nr: 90, mode: 1 },
      { nr: 91, mode: 1 },
      { nr: 268, mode: 2 },
      { nr: 452, mode: 2 },
      { nr: 85, mode: 1 },
      { nr: 2, mode: 2, flags: 1 },
      { nr: 257, mode: 3, flags: 2 },
      { nr: 133, mode: 1 },
      { nr: 259, mode: 2 },
    ],
    x32: true,
  },
  // add_key 217, request_key 218, keyctl 219, openat2 437; fchmod 52, fchmodat 53, fchmodat2 452, openat 56,
  // mknodat 33.
  arm64: {
    audit: 0xc00000b7,
    blocked: [217, 218, 219, 437, 425, 426, 427],
    modes: [
      { nr: 52, mode: 1 },
      { nr: 53, mode: 2 },
      { nr: 452, mode: 2 },
      { nr: 56, mode: 3, flags: 2 },
      { nr: 33, mode: 2 },
    ],
  },
};

function instruction(code: number, jt: number, jf: number, k: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(code, 0);
  b.writeUInt8(jt, 2);
  b.writeUInt8(jf, 3);
  b.writeUInt32LE(k >>> 0, 4);
  return b;
}

/** A jump target: the allow or deny return, the next instruction, or the instruction after the current block. */
type Target = 'allow' | 'deny' | 'next' | 'end-of-block';
interface Op {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
}

/** The low 32 bits of a call's argument `i` in struct seccomp_data (little-endian on both architectures). */
const argAt = (i: number): number => 16 + 8 * i;

/**
 * The filter for `arch` (Node's name), or undefined where tether has no syscall table for it: another
 * architecture's calls, the kernel's key management calls, openat2, io_uring and x32 calls get EPERM, and so do chmod-like calls and file creations whose mode has a
 * set-user-ID or set-group-ID bit. Everything else is allowed.
 */
export function commandFilter(arch: string = process.arch): Buffer | undefined {
  const a = ARCHES[arch];
  if (!a) return undefined;
  const blocks: Op[][] = [
    // Another architecture's calls (i386 through int 0x80 on x86-64, arm32 on arm64) would pass every check below
    // under other numbers: refused as a whole.
    [
      { code: LD_W_ABS, k: 4 },
      { code: JEQ_K, k: a.audit, jt: 'next', jf: 'deny' },
      { code: LD_W_ABS, k: 0 },
    ],
  ];
  if (a.x32) blocks.push([{ code: JGE_K, k: 0x40000000, jt: 'deny', jf: 'next' }]);
  for (const nr of a.blocked) blocks.push([{ code: JEQ_K, k: nr, jt: 'deny', jf: 'next' }]);
  for (const c of a.modes) {
    // The call's number is reloaded after each block that loads an argument.
    blocks.push([
      { code: JEQ_K, k: c.nr, jt: 'next', jf: 'end-of-block' },
      ...(c.flags === undefined
        ? []
        : [
            { code: LD_W_ABS, k: argAt(c.flags) },
            { code: JSET_K, k: TAKES_MODE, jt: 'next', jf: 'allow' } satisfies Op,
          ]),
      { code: LD_W_ABS, k: argAt(c.mode) },
      { code: JSET_K, k: SETID_BITS, jt: 'deny', jf: 'allow' },
    ]);
  }
  blocks.push([{ code: RET_K, k: RET_ALLOW }], [{ code: RET_K, k: RET_EPERM }]);
  const flat = blocks.flatMap((ops, b) =>
    ops.map((op, i) => ({ op, blockEnd: blocks.slice(0, b + 1).flat().length, at: i })),
  );
  const allowAt = flat.length - 2;
  const denyAt = flat.length - 1;
  return Buffer.concat(
    flat.map(({ op, blockEnd }, pc) => {
      const to = (t: Target | undefined): number => {
        const dest = t === 'allow' ? allowAt : t === 'deny' ? denyAt : t === 'end-of-block' ? blockEnd : pc + 1;
        const offset = dest - pc - 1;
        if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump of ${offset} at ${pc}`);
        return offset;
      };
      return instruction(op.code, op.jt || op.jf ? to(op.jt) : 0, op.jt || op.jf ? to(op.jf) : 0, op.k);
    }),
  );
}

/**
 * The filter as a file bwrap can be given (TETHER_HOME/seccomp/, hidden from commands), written when missing or
 * different; undefined where there is no filter for this architecture.
 */
export function commandFilterFile(): string | undefined {
  const filter = commandFilter();
  if (!filter) return undefined;
  const dir = join(tetherHome(), 'seccomp');
  const file = join(dir, `commands-${process.arch}.bpf`);
  if (existsSync(file) && readFileSync(file).equals(filter)) return file;
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, filter, { mode: 0o644 });
  renameSync(tmp, file);
  return file;
}

/** `argv` (bwrap first, with `--seccomp 9` among its arguments) run with the filter file open on descriptor 9. */
export function withFilterOn9(file: string, argv: string[]): string[] {
  return ['/bin/sh', '-c', 'exec "$@" 9<"$0"', file, ...argv];
}
