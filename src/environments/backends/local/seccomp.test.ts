import { describe, expect, it } from 'vitest';
import { commandFilter } from './seccomp.js';

/** Runs the classic BPF program on a struct seccomp_data (the subset of instructions the filter uses). */
function run(program: Buffer, arch: number, nr: number, args: number[] = []): 'allow' | 'eperm' | string {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((a, i) => data.writeUInt32LE(a >>> 0, 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length;) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program[pc * 8 + 2]!;
    const jf = program[pc * 8 + 3]!;
    const k = program.readUInt32LE(pc * 8 + 4);
    pc += 1;
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === 0x06) return k === 0x7fff0000 ? 'allow' : k === 0x50001 ? 'eperm' : `ret ${k.toString(16)}`;
    else return `unknown instruction ${code.toString(16)}`;
  }
  return 'fell off the end';
}

const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;
const O_CREAT = 0o100;
const O_RDONLY = 0;

describe('the commands seccomp filter', () => {
  const x64 = commandFilter('x64')!;
  const arm = commandFilter('arm64')!;

  it('refuses the key management calls, openat2, io_uring, x32 calls and every call of another architecture', () => {
    for (const nr of [248, 249, 250, 437, 425, 426, 427]) expect(run(x64, X64, nr)).toBe('eperm');
    expect(run(x64, X64, 0x40000000 + 90)).toBe('eperm');
    for (const nr of [217, 218, 219, 437, 425, 426, 427]) expect(run(arm, ARM64, nr)).toBe('eperm');
    // i386 through int 0x80 on x86-64 (chmod is 15 there), arm32 on arm64
    for (const nr of [15, 0, 1, 3]) expect(run(x64, 0x40000003, nr, [0, 0o4755])).toBe('eperm');
    expect(run(arm, 0x40000028, 15)).toBe('eperm');
    expect(commandFilter('riscv64')).toBeUndefined();
  });

  it('refuses a set-user-ID or set-group-ID mode in chmod, fchmod, fchmodat(2), creat, mknod(at)', () => {
    const cases: [number, number][] = [
      [90, 1],
      [91, 1],
      [268, 2],
      [452, 2],
      [85, 1],
      [133, 1],
      [259, 2],
    ];
    for (const [nr, at] of cases) {
      const args = (mode: number) => Array.from({ length: 4 }, (_, i) => (i === at ? mode : 3));
      expect(run(x64, X64, nr, args(0o4755)), `x64 ${nr}`).toBe('eperm');
      expect(run(x64, X64, nr, args(0o2755)), `x64 ${nr}`).toBe('eperm');
      expect(run(x64, X64, nr, args(0o755)), `x64 ${nr}`).toBe('allow');
      expect(run(x64, X64, nr, args(0o1777)), `x64 ${nr} (sticky)`).toBe('allow');
    }
    for (const [nr, at] of [
      [52, 1],
      [53, 2],
      [452, 2],
      [33, 2],
    ] as const) {
      const args = (mode: number) => Array.from({ length: 4 }, (_, i) => (i === at ? mode : 3));
      expect(run(arm, ARM64, nr, args(0o4755)), `arm64 ${nr}`).toBe('eperm');
      expect(run(arm, ARM64, nr, args(0o644)), `arm64 ${nr}`).toBe('allow');
    }
  });

  it('refuses open and openat only when they create with a set-ID mode; other opens pass whatever the mode register', () => {
    expect(run(x64, X64, 2, [0, O_CREAT | 1, 0o4755])).toBe('eperm');
    expect(run(x64, X64, 2, [0, O_CREAT | 1, 0o644])).toBe('allow');
    expect(run(x64, X64, 2, [0, O_RDONLY, 0o4755])).toBe('allow');
    expect(run(x64, X64, 257, [-100, 0, O_CREAT, 0o6755])).toBe('eperm');
    expect(run(x64, X64, 257, [-100, 0, 0o20200000, 0o4700])).toBe('eperm'); // O_TMPFILE
    expect(run(x64, X64, 257, [-100, 0, O_RDONLY, 0o4755])).toBe('allow');
    expect(run(arm, ARM64, 56, [-100, 0, O_CREAT, 0o4755])).toBe('eperm');
    expect(run(arm, ARM64, 56, [-100, 0, O_RDONLY, 0o4755])).toBe('allow');
  });

  it('allows every other call', () => {
    for (const nr of [0, 1, 3, 59, 60, 231, 435])
      expect(run(x64, X64, nr, [0o4755, 0o4755, 0o4755, 0o4755])).toBe('allow');
  });
});
