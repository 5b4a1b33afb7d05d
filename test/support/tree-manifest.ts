// A directory described exactly, for comparing one state with another: every entry by its raw name bytes, with its
// type, permission bits and content digest (a link: its target). Links are described, never followed.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

const SLASH = Buffer.from('/');

/** Path (its bytes as latin1 text) → `dir 755`, `file 644 <sha256>`, `link <target>`. */
export function manifest(root: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: Buffer, rel: string): void => {
    for (const name of readdirSync(dir, { encoding: 'buffer' })) {
      const path = Buffer.concat([dir, SLASH, name]);
      const r = rel === '' ? name.toString('latin1') : `${rel}/${name.toString('latin1')}`;
      if (skip(r)) continue;
      const s = lstatSync(path);
      const perm = (s.mode & 0o777).toString(8);
      if (s.isSymbolicLink()) out[r] = `link ${readlinkSync(path, { encoding: 'buffer' }).toString('latin1')}`;
      else if (s.isDirectory()) {
        out[r] = `dir ${perm}`;
        walk(path, r);
      } else if (s.isFile()) out[r] = `file ${perm} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
      else out[r] = 'special';
    }
  };
  walk(Buffer.from(root), '');
  return out;
}
