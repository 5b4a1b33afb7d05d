// Code fetched by tools other than curl and wget, for "downloaded, then run in the same command line": aria2c, axel,
// httpie --download, and `git clone` of a repository whose script is then run (`git clone URL /tmp/x && bash
// /tmp/x/install.sh` is `curl | sh` with more steps). A cloned directory is remembered with a trailing `/`. Pure.
import type { Check } from './types.js';
import { judges } from './registry.js';
import type { GitCheck } from '../programs/git/call.js';
import { INIT_VALUE_OPTS } from '../programs/git/commands.js';

/** `path` was written by a download earlier in this command line, or lies inside a directory that was cloned. */
export function wasDownloaded(downloaded: ReadonlySet<string>, path: string): boolean {
  const p = path.replace(/^\.\//, '');
  if (downloaded.has(p)) return true;
  for (const d of downloaded) if (d.endsWith('/') && p.startsWith(d)) return true;
  return false;
}

const join = (dir: string | undefined, name: string): string =>
  dir === undefined || name.startsWith('/') ? name : `${dir.replace(/\/+$/, '')}/${name}`;

/** `aria2c -d DIR -o NAME URL`, `axel -o PATH URL`: the file they write. */
const fetcher: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  // `-d DIR`, `--dir DIR`, `--dir=DIR` (the first given).
  const value = (...keys: string[]): string | undefined => {
    const t = w.find((x) => keys.some((k) => x === k || (k.startsWith('--') && x.startsWith(`${k}=`))));
    return t === undefined ? undefined : t.includes('=') ? t.slice(t.indexOf('=') + 1) : w[w.indexOf(t) + 1];
  };
  const dir = value('-d', '--dir');
  const out = value('-o', '--out', '--output');
  const url = w.find((t) => /^(https?|ftp):\/\//.test(t));
  const name = out ?? url?.replace(/[?#].*$/, '').replace(/^.*\//, '');
  if (name) ctx.downloaded.add(join(dir, name).replace(/^\.\//, ''));
};

/** `git clone URL [DIR]`: the repository's files are fetched code until someone has read them. */
export const gitClone: GitCheck = ({ sub, rest }, _cmd, _io, ctx) => {
  if (sub !== 'clone') return;
  const w = rest.map((a) => a.text);
  const ops: string[] = [];
  for (let i = 0; i < w.length; i += 1) {
    if (INIT_VALUE_OPTS.test(w[i]!)) i += 1;
    else if (!w[i]!.startsWith('-')) ops.push(w[i]!);
  }
  const [url, dir] = ops;
  if (!url || !/^(https?:\/\/|git@|ssh:\/\/|git:\/\/)/.test(url)) return;
  const name = dir ?? url.replace(/(\.git)?\/*$/, '').replace(/^.*[/:]/, '');
  if (name) ctx.downloaded.add(`${name.replace(/^\.\//, '').replace(/\/+$/, '')}/`);
};

judges(import.meta.url, { 'aria2c axel': fetcher });
