// Classifies the paths a command deletes or writes: the root, the home directory, system directories and
// files, outside the project, or inside it. Pure (no file-system access; `cwd` only compares strings).
import { normalizePath } from '../../common/paths.js';
import type { Word } from './words.js';
import { names } from './names.js';

export type PathClass = 'root' | 'home' | 'system-dir' | 'system-path' | 'outside' | 'project-all' | 'temp' | 'inside';

const SYSTEM_DIRS = new Set(
  names(`
  /bin /boot /dev /etc /lib /lib32 /lib64 /libx32 /opt /proc /root /run /sbin /srv /sys /usr /var /mnt /media /snap
  /usr/bin /usr/lib /usr/lib64 /usr/local /usr/sbin /usr/share /usr/include /usr/local/bin /var/lib /var/log
  /var/cache /etc/ssh
`),
);

/** Directories whose contents are the system's own: writing or deleting there changes the machine. */
const SYSTEM_TREES = names(
  `/etc /boot /usr /bin /sbin /lib /lib32 /lib64 /libx32 /var/lib /var/spool /sys /proc /root /private/etc`,
);

const STARTUP_FILES = new Set(
  names(`
  .bashrc .bash_aliases .bash_profile .bash_login .bash_logout .profile .zshrc .zprofile .zshenv .zlogin .kshrc .cshrc
  .tcshrc .config/fish/config.fish .inputrc .xinitrc .xprofile .pam_environment
`),
);

const BLOCK_DEVICE =
  /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|nbd\d|sr\d|mapper\/|disk\/|root$|rdisk\d|disk\d)/;
const HARMLESS_DEVICES = new Set(
  names(`/dev/null /dev/stdout /dev/stderr /dev/stdin /dev/tty /dev/zero /dev/full /dev/fd/1 /dev/fd/2`),
);

export const isBlockDevice = (path: string): boolean => BLOCK_DEVICE.test(path);

/** Where relative paths are: the project directory, and the shell's current directory (null: unknown after `cd $X`). */
export interface Where {
  project?: string;
  cwd?: string | null;
}

/** Normalises `~`, `~user`, `//`, `.`, `..` and trailing slashes, keeping a trailing glob segment. */
function normalise(text: string): string {
  const t = text
    .replace(/^~(?=\/|$)/, '/~home')
    .replace(/^~(root)(?=\/|$)/, '/root')
    .replace(/^~([a-z_][a-z0-9_.-]*)(?=\/|$)/i, '/home/$1');
  return normalizePath(t);
}

function homeRelative(p: string): string | null {
  if (p === '/~home') return '';
  if (p.startsWith('/~home/')) return p.slice('/~home/'.length);
  const m = /^\/(?:home|Users)\/[^/]+(?:\/(.*))?$/.exec(p) ?? /^\/root(?:\/(.*))?$/.exec(p);
  return m ? (m[1] ?? '') : null;
}

const stripGlob = (p: string): string => p.replace(/\/(\*|\.\*|\.\[!.\]\*|\{.*\})$/, '') || '/';

/** A tool's cache in the home directory (~/.cache/..., ~/.npm/_cacache, ~/.gradle/caches): rebuilt when missing. */
const HOME_CACHE = /^(\.cache(\/|$)|\.[\w.-]+\/(.+\/)?(_?cache|caches|_cacache)(\/|$))/;

function classifyAbsolute(p: string, project: string | undefined): PathClass {
  const base = stripGlob(p);
  if (base === '/') return 'root';
  const home = homeRelative(base);
  if (home === '' || p === '/home' || p === '/Users') return 'home';
  if (home !== null && HOME_CACHE.test(home)) return 'temp';
  if (home !== null && (home === '.ssh' || home.startsWith('.ssh/') || STARTUP_FILES.has(home))) return 'system-path';
  if (SYSTEM_DIRS.has(base)) return 'system-dir';
  if (SYSTEM_TREES.some((t) => p.startsWith(`${t}/`))) return 'system-path';
  if (p.startsWith('/dev/')) return HARMLESS_DEVICES.has(p) ? 'temp' : 'system-path';
  const root = project ? normalizePath(project) : undefined;
  if (root && root !== '/') {
    if (base === root) return 'project-all';
    if (p.startsWith(`${root}/`)) return 'inside';
  }
  if (/^\/(tmp|var\/tmp)\/[^/]+/.test(p) && !/^\/(tmp|var\/tmp)\/\*$/.test(p)) return 'temp';
  return 'outside';
}

export function classifyPath(word: Word, where: Where = {}): PathClass {
  // $TMPDIR is a temporary directory like /tmp, until `..` climbs out of it (`$TMPDIR/../../*` is `/*`).
  const tmp =
    word.dynamic && word.substitutions.length === 0 && /^\$(?:\{TMPDIR\}|TMPDIR)(\/[^$`]*[^/$`])/.exec(word.text);
  if (tmp) {
    const p = normalise(`/tmp${tmp[1]!}`);
    return p.startsWith('/tmp/') ? 'temp' : classifyAbsolute(p, where.project);
  }
  // "$(mktemp -d)": a new temporary path, whatever it is called.
  if (word.substitutions.length === 1 && /^\$\(\s*mktemp\b[^)]*\)$/.test(word.text.trim())) return 'temp';
  let text = word.text;
  if (word.dynamic) {
    // Only the part before the first expansion is known; a command substitution could produce anything.
    if (word.substitutions.length > 0 && !text.startsWith('/tmp/')) return 'outside';
    const known = text.slice(0, text.search(/\$|`/));
    if (known === '' || known === '~' || known === '..' || known === '../') return 'outside';
    if (known === '/') return 'root';
    text = `${known}x`;
  }
  const cwd = where.cwd === undefined ? where.project : where.cwd;
  const relative = !text.startsWith('/') && !text.startsWith('~');
  if (relative) {
    if (cwd === null) return 'outside'; // after `cd $X` nobody knows where a relative path points
    if (cwd) return classifyAbsolute(normalise(`${cwd}/${text}`), where.project);
    const p = normalise(text);
    if (p === '..' || p.startsWith('../')) return 'outside';
    if (stripGlob(p) === '.' || p === '*' || p === '.*') return 'project-all';
    return 'inside';
  }
  return classifyAbsolute(normalise(text), where.project);
}

/** Resolves a directory given to `cd` (or `env -C`): absolute, or against the current one; null when unknown. */
export function resolveDir(word: Word, where: Where): string | null {
  if (word.dynamic) return null;
  if (word.text === '' || word.text === '~') return '/~home';
  if (word.text.startsWith('/') || word.text.startsWith('~')) return normalise(word.text);
  const cwd = where.cwd === undefined ? where.project : where.cwd;
  return cwd ? normalise(`${cwd}/${word.text}`) : null;
}

/** Where a write lands: a block device, a network socket, system configuration, or somewhere ordinary. */
type WriteClass = 'block-device' | 'network' | 'system-config' | 'ordinary';

export function classifyWrite(word: Word, where: Where = {}): WriteClass {
  const p = normalise(word.text);
  if (isBlockDevice(p)) return 'block-device';
  if (/^\/dev\/(tcp|udp)\//.test(p)) return 'network';
  if (HARMLESS_DEVICES.has(p) || p.startsWith('/dev/fd/')) return 'ordinary';
  const c = classifyPath(word, where);
  return c === 'system-path' || c === 'system-dir' || c === 'root' || p.startsWith('/etc/')
    ? 'system-config'
    : 'ordinary';
}
