// Programs found through a changed lookup: a PATH that puts a directory of the task first (`PATH=$PWD/bin:$PATH; x`,
// `export PATH=./bin:$PATH`), `hash -p FILE NAME`. A later command name resolved through it runs that file, which is
// read and judged like `./bin/x`. Pure.
import { normalizePath } from '../../../common/paths.js';
import type { Where } from '../../engine/paths.js';
import type { Word } from '../../engine/words.js';
import { names } from '../../engine/names.js';

/** Bash builtins and keywords: found without PATH. */
const BUILTINS = new Set(
  names(`alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable
    eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd
    read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias
    unset wait . : [ [[ ]] if then else elif fi case esac for while until do done function time`),
);

/** A command name bash looks up on PATH (not a builtin, not a path). */
export const lookedUp = (name: string): boolean => !name.includes('/') && !BUILTINS.has(name);

/**
 * The directories of the task a PATH value puts before the old PATH (all of them when PATH is replaced), as paths to
 * read from: relative ones as written (bash resolves them where the lookup happens), `$PWD/x` where it is set now.
 * Installed and home directories are not the task's: they are not read.
 */
export function taskPathDirs(value: Word, where: Where): string[] {
  const entries = value.text.split(':');
  const own = entries.findIndex((e) => /^\$(PATH|\{PATH\})$/.test(e));
  const here = where.cwd === undefined || where.cwd === where.project ? '.' : where.cwd;
  const dirs: string[] = [];
  for (const entry of own < 0 ? entries : entries.slice(0, own)) {
    const pwd = /^(\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)(\/.*)?$/.exec(entry);
    if (pwd) dirs.push(here === null ? entry : `${here}${pwd[2] ?? ''}`);
    else if (entry !== '' && !/^[/$~`]/.test(entry)) dirs.push(entry);
    else if (where.project && entry.startsWith(`${where.project}/`)) dirs.push(entry);
  }
  return dirs.map((d) => normalizePath(d) || '.');
}

/** The file a name is looked up as in a directory of the path. */
export const inDir = (dir: string, name: string): string => (dir === '.' ? name : `${dir}/${name}`);
