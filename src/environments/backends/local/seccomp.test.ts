import { describe, expect, it } from 'vitest';
import { keyringFilter } from './seccomp.js';

/** The program as (code, jt, jf, k) rows. */
function rows(b: Buffer): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (let i = 0; i < b.length; i += 8) out.push([b.readUInt16LE(i), b[i + 2]!, b[i + 3]!, b.readUInt32LE(i + 4)]);
  return out;
}

describe('the keyring seccomp filter', () => {
  it('x86-64: another architecture is allowed; x32 and add_key/request_key/keyctl get EPERM; the rest is allowed', () => {
    expect(rows(keyringFilter('x64')!)).toEqual([
      [0x20, 0, 0, 4],
      [0x15, 0, 5, 0xc000003e],
      [0x20, 0, 0, 0],
      [0x35, 4, 0, 0x40000000],
      [0x15, 3, 0, 248],
      [0x15, 2, 0, 249],
      [0x15, 1, 0, 250],
      [0x06, 0, 0, 0x7fff0000],
      [0x06, 0, 0, 0x00050001],
    ]);
  });

  it('arm64 has its own numbers; an architecture without a table has no filter', () => {
    expect(rows(keyringFilter('arm64')!).map((r) => r[3])).toEqual([
      4, 0xc00000b7, 0, 217, 218, 219, 0x7fff0000, 0x50001,
    ]);
    expect(keyringFilter('riscv64')).toBeUndefined();
  });
});
