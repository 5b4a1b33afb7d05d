// Which checks judge a command name: every table that knows the name (a name may be judged by several: curl for where
// it writes and for what it uploads), and the generic resource-CLI verb check for names no table claims and for the
// infrastructure CLIs. Pure.
import { powershellCheckFor } from './powershell.js';
import { interpreterOf } from './exec.js';
import { remoteRun, resourceVerbs, scriptSubcommands } from './resource.js';
import { systemCheckFor } from './system.js';
import { registrations, type Registration } from './registry.js';
import './registered.js';
import { withAdd, type Check } from './types.js';
import { names } from '../engine/names.js';

/** Tools whose words are text, paths, patterns or build targets, never a resource CLI's verbs. */
const NOT_RESOURCE_CLIS = new Set(
  names(`echo printf cat tac less more head tail grep egrep fgrep zgrep rg ag ack fd fdfind find locate ls tree wc sort uniq cut tr
  sed awk gawk mawk jq yq xq diff cmp comm paste join column fold fmt nl od xxd hexdump strings file stat du df touch mkdir cp
  mv ln install rm rmdir unlink tar zip unzip gzip gunzip bzip2 xz 7z zstd test [ true false sleep date cal which whereis type
  man info tldr help basename dirname realpath readlink pwd cd pushd popd export set unset alias source read printenv id
  whoami groups hostname uname uptime ps top htop free vmstat iostat lsof ss netstat ping dig host nslookup traceroute mtr
  curl wget http https xh ssh scp sftp rsync make cmake ninja meson bazel gradle gradlew mvn mvnw sbt ant npx pytest tox nox
  jest vitest mocha ava eslint prettier tsc ruff black isort flake8 pylint mypy pyright golangci-lint gofmt shellcheck
  hadolint actionlint pre-commit semgrep trivy tsx ts-node vim vi nano emacs code tmux screen watch timeout xargs parallel
  journalctl tee mktemp split patch sha256sum sha1sum md5sum base64 base32 openssl gpg ssh-keygen ssh-add ssh-keyscan nc
  ncat socat telnet nmap tcpdump dmesg last w who history column identify ffprobe ffmpeg convert pdftotext xmllint nproc
  lscpu lsblk blkid findmnt mount lsb_release hostnamectl timedatectl resolvectl ethtool iwconfig iotop ncdu sync pstree
  pgrep pidof renice nice ulimit jobs bg fg disown wait trap exit return shift getent sudo su doas env command builtin exec
  eval time nohup setsid stdbuf ionice chroot flock unbuffer strace ltrace ldd readelf objdump nm hexyl bat exa eza
  webpack esbuild rollup vite storybook turbo nx lerna rimraf del-cli mkdocs sphinx-build hugo jekyll gcc g++ cc clang
  clang++ ld as rustc javac java kotlin scala go cargo node deno bun python python3 pip pip3 ruby perl php lua Rscript julia
  docker-credential-helper qemu-img losetup truncate fallocate chmod chown chgrp setfacl getfacl chattr lsattr`),
);

/** Names a table judges fully (their verbs are not a resource CLI's): databases, shells, system tools. */
function claimed(name: string, tables: readonly Registration[], exec: (name: string) => Check | undefined): boolean {
  if (tables.some((r) => r.backedByVerbs) && name !== 'git') return false;
  return tables.some((r) => r.claims) || exec(name) !== undefined;
}

/**
 * Runs every check; the fallback only when none of them found anything, so an infrastructure CLI its own table knows
 * (kubectl delete) is reported once, by its own rule, and the generic verb check covers what that table misses.
 */
function compose(checks: Check[], fallback?: Check): Check | undefined {
  if (!fallback) return checks.length <= 1 ? checks[0] : (cmd, io, ctx) => checks.forEach((c) => c(cmd, io, ctx));
  if (checks.length === 0) return fallback;
  return (cmd, io, ctx) => {
    let found = 0;
    const counting = withAdd(ctx, (rule, detail) => ((found += 1), ctx.add(rule, detail)));
    for (const c of checks) c(cmd, io, counting);
    if (found === 0) fallback(cmd, io, ctx);
  };
}

/**
 * Every check that judges a program name, with the module that holds it (as a path under src/detector), and whether
 * the generic resource-CLI verb check backs them up. The one selection both the lookup and `npm run detector:who` read.
 */
function judgesOf(
  name: string,
  exec: (name: string) => Check | undefined,
): { found: { module: string; check: Check }[]; generic: boolean } {
  const tables = registrations().filter((r) => Object.hasOwn(r.table, name));
  const found = tables.map((r) => ({ module: r.module, check: r.table[name]! }));
  const system = systemCheckFor(name);
  const powershell = system ? undefined : powershellCheckFor(name);
  const shell = system || powershell ? undefined : exec(name);
  if (system) found.push({ module: 'checks/system.ts (by pattern)', check: system });
  if (powershell) found.push({ module: 'checks/powershell.ts (by pattern)', check: powershell });
  if (shell) found.push({ module: 'checks/exec.ts (a shell or interpreter)', check: shell });
  if (interpreterOf(name)) found.push({ module: 'checks/resource.ts (script subcommands)', check: scriptSubcommands });
  if (name === 'ansible' || name === 'salt' || name === 'salt-ssh' || name === 'pdsh')
    found.push({ module: 'checks/resource.ts (remote runs)', check: remoteRun });
  const generic = !NOT_RESOURCE_CLIS.has(name) && !claimed(name, tables, exec);
  return { found, generic };
}

/** Builds the name → check lookup; `exec` gives the checks of shells, interpreters and other code runners. */
export function checkLookup(exec: (name: string) => Check | undefined): (name: string) => Check | undefined {
  const cache = new Map<string, Check | undefined>();
  return (name: string) => {
    if (cache.has(name)) return cache.get(name);
    const { found, generic } = judgesOf(name, exec);
    const check = compose(
      found.map((f) => f.check),
      generic ? resourceVerbs : undefined,
    );
    cache.set(name, check);
    return check;
  };
}

/**
 * Where the checks that judge a program name live, as module paths under src/detector (`npm run detector:who`): the
 * same selection the lookup makes. What every command meets whatever its name (writes, redirects, resource abuse) is
 * the walker's.
 */
export function modulesJudging(name: string, exec: (name: string) => Check | undefined): string[] {
  const { found, generic } = judgesOf(name, exec);
  return [...found.map((f) => f.module), ...(generic ? ['checks/resource.ts (generic resource verbs)'] : [])];
}
