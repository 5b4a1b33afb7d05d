// A seccomp filter for sandboxed commands: the kernel's key management calls (add_key, request_key, keyctl) fail
// with EPERM. Keyrings belong to the user, not to a namespace bwrap can make, so without it a command shares the
// worker's user keyring (and can read or plant keys there). Built as raw classic BPF, the form bwrap's --seccomp
// reads. Worker-only.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tetherHome } from '../../../config/home.js';

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;

/** The calls refused, and the audit architecture their numbers belong to. */
const ARCHES: Readonly<Record<string, { audit: number; blocked: readonly number[]; x32?: boolean }>> = {
  // add_key 248, request_key 249, keyctl 250; x32 numbers (bit 30 set) are refused as a whole.
  x64: { audit: 0xc000003e, blocked: [248, 249, 250], x32: true },
  // add_key 217, request_key 218, keyctl 219
  arm64: { audit: 0xc00000b7, blocked: [217, 218, 219] },
};

function instruction(code: number, jt: number, jf: number, k: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt16LE(code, 0);
  b.writeUInt8(jt, 2);
  b.writeUInt8(jf, 3);
  b.writeUInt32LE(k >>> 0, 4);
  return b;
}

/** The filter for `arch` (Node's name), or undefined where tether has no syscall table for it. */
export function keyringFilter(arch: string = process.arch): Buffer | undefined {
  const a = ARCHES[arch];
  if (!a) return undefined;
  const checks = a.blocked.length + (a.x32 ? 1 : 0);
  // Layout: ld arch; jeq arch (else allow); ld nr; [jge x32 → deny]; jeq each → deny; ret allow; ret deny.
  const out: Buffer[] = [];
  out.push(instruction(LD_W_ABS, 0, 0, 4));
  out.push(instruction(JEQ_K, 0, checks + 1, a.audit)); // another architecture: jump over nr and the checks to allow
  out.push(instruction(LD_W_ABS, 0, 0, 0));
  let left = checks;
  if (a.x32) out.push(instruction(JGE_K, (left -= 1) + 1, 0, 0x40000000));
  for (const nr of a.blocked) out.push(instruction(JEQ_K, (left -= 1) + 1, 0, nr));
  out.push(instruction(RET_K, 0, 0, RET_ALLOW));
  out.push(instruction(RET_K, 0, 0, RET_EPERM));
  return Buffer.concat(out);
}

/**
 * The filter as a file bwrap can be given (TETHER_HOME/seccomp/, hidden from commands), written when missing or
 * different; undefined where there is no filter for this architecture.
 */
export function keyringFilterFile(): string | undefined {
  const filter = keyringFilter();
  if (!filter) return undefined;
  const dir = join(tetherHome(), 'seccomp');
  const file = join(dir, `keyring-${process.arch}.bpf`);
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
