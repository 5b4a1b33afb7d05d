// Classifies the paths a command deletes or writes: the root, the home directory, system directories and
// files, outside the project, or inside it. Pure (no file-system access; `cwd` only compares strings).
import type { Word } from './words.js';

export type PathClass = 'root' | 'home' | 'system-dir' | 'system-path' | 'outside' | 'project-all' | 'temp' | 'inside';

const SYSTEM_DIRS = new Set([
  '/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/proc', '/root', '/run', '/sbin',
  '/srv', '/sys', '/usr', '/var', '/mnt', '/media', '/snap', '/usr/bin', '/usr/lib', '/usr/lib64', '/usr/local',
  '/usr/sbin', '/usr/share', '/usr/include', '/usr/local/bin', '/var/lib', '/var/log', '/var/cache', '/etc/ssh',
]);

/** Directories whose contents are the system's own: writing or deleting there changes the machine. */
const SYSTEM_TREES = ['/etc', '/boot', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/var/lib', '/sys', '/proc', '/root'];

const STARTUP_FILES = new Set([
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin',
  '.kshrc', '.cshrc', '.tcshrc', '.config/fish/config.fish', '.inputrc', '.xinitrc', '.xprofile', '.pam_environment',
]);

const BLOCK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|nbd\d|sr\d|mapper\/|disk\/|root$|rdisk\d|disk\d)/;
const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty', '/dev/zero', '/dev/full', '/dev/fd/1', '/dev/fd/2']);

export const isBlockDevice = (path: string): boolean => BLOCK_DEVICE.test(path);
export const isNetworkDevice = (path: string): boolean => /^\/dev\/(tcp|udp)\//.test(path);
export const isHarmlessDevice = (path: string): boolean => HARMLESS_DEVICES.has(path);

/** POSIX path normalisation without node:path: collapses '//', '.', and '..' (which cannot climb above '/'). */
export function normalizePath(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out.at(-1) !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** Normalises `~`, `//`, `.`, `..` and trailing slashes, keeping a trailing glob segment. */
function normalise(text: string): string {
  const p = normalizePath(text.replace(/^~(?=\/|$)/, '/~home'));
  return p;
}

function homeRelative(p: string): string | null {
  if (p === '/~home') return '';
  if (p.startsWith('/~home/')) return p.slice('/~home/'.length);
  const m = /^\/(?:home|Users)\/[^/]+(?:\/(.*))?$/.exec(p) ?? /^\/root(?:\/(.*))?$/.exec(p);
  return m ? (m[1] ?? '') : null;
}

const stripGlob = (p: string): string => p.replace(/\/(\*|\.\*|\.\[!.\]\*|\{.*\})$/, '') || '/';

export function classifyPath(word: Word, cwd?: string): PathClass {
  let text = word.text;
  if (word.dynamic) {
    // Only the part before the first expansion is known.
    const known = text.slice(0, text.search(/\$|`/));
    if (known === '' || known.startsWith('/') || known.startsWith('~') || known.startsWith('..')) return known === '/' ? 'root' : 'outside';
    text = known;
  }
  const p = normalise(text);
  const base = stripGlob(p);
  if (base === '/' || p === '/') return 'root';
  const home = homeRelative(base);
  if (home === '' || p === '/home' || p === '/Users') return 'home';
  if (home !== null) {
    if (home === '.ssh' || home.startsWith('.ssh/') || STARTUP_FILES.has(home)) return 'system-path';
    return 'outside';
  }
  if (SYSTEM_DIRS.has(base)) return 'system-dir';
  if (p.startsWith('/')) {
    if (SYSTEM_TREES.some((t) => p.startsWith(`${t}/`))) return 'system-path';
    if (p.startsWith('/dev/')) return isHarmlessDevice(p) ? 'temp' : 'system-path';
    if (/^\/(tmp|var\/tmp)\/[^/]+/.test(p) && !/^\/(tmp|var\/tmp)\/\*$/.test(p)) return 'temp';
    if (cwd) {
      const root = normalizePath(cwd).replace(/\/+$/, '');
      if (base === root) return 'project-all';
      if (p.startsWith(`${root}/`)) return 'inside';
    }
    return 'outside';
  }
  if (p === '..' || p.startsWith('../')) return 'outside';
  if (base === '.' || p === '*' || p === '.*' || p === '.') return 'project-all';
  return 'inside';
}

/** Where a write lands: a block device, a network socket, system configuration, or somewhere ordinary. */
export type WriteClass = 'block-device' | 'network' | 'system-config' | 'ordinary';

export function classifyWrite(word: Word, cwd?: string): WriteClass {
  const p = normalise(word.text);
  if (isBlockDevice(p)) return 'block-device';
  if (isNetworkDevice(p)) return 'network';
  if (isHarmlessDevice(p)) return 'ordinary';
  const c = classifyPath({ ...word, dynamic: false }, cwd);
  if (c === 'system-path' || c === 'system-dir' || c === 'root') return 'system-config';
  if (p === '/etc/profile' || p.startsWith('/etc/')) return 'system-config';
  return 'ordinary';
}
