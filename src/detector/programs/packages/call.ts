// How a package manager's command line reads (npm, pnpm, yarn, pip, uv, poetry, cargo, gem, apt, brew, ...): its
// options with their values skipped, so that `npm --prefix x publish`, `apt-get -y remove nginx` and
// `poetry -C dir publish` read as what they do. The one reader for every judgement of a package manager
// (packages/checks.ts lists them). Pure.
import type { CheckContext, Io } from '../../checks/types.js';
import { parseFlags, type Argv } from '../../engine/argv.js';
import { keyTable, names } from '../../engine/names.js';
import type { Word } from '../../engine/words.js';

/** Package managers of a project's dependencies, and those of the machine's own software. */
export const PROJECT_MANAGERS = names(`npm yarn pnpm bun pip pip3 pipx uv poetry pdm pipenv hatch flit twine cargo
  go gem bundle bundler composer dotnet nuget mix cabal stack conda mamba micromamba deno swift dart flutter`);
export const SYSTEM_MANAGERS = names(`apt apt-get aptitude dnf yum microdnf zypper apk brew port snap flatpak pkg
  choco winget scoop nix-env emerge pacman rpm dpkg`);

/** Long options that take a value wherever they appear (paths, indexes, registries, selections). */
const LONG_VALUED = names(`--prefix --registry --index --index-url --default-index --extra-index-url --find-links
  --cache-dir --cache --cwd --dir --directory --project --python --config-file --workspace --workspace-dir --filter
  --target --target-dir --root --src --requirement --constraint --editable --group --extras --source --tag
  --manifest-path --package --features --repository --repository-url --userconfig --globalconfig --loglevel --otp
  --access --scope --before --omit --include --location --install-strategy --call --with --without --only --name
  --channel --working-dir --gemfile --install-dir --spec --env --username --password --token --jobs --store-dir
  --modules-folder --cache-folder --setopt --trusted-host --cert --client-cert --platform --python-version
  --exists-action --log --proxy --retries --timeout --progress-bar --report --upgrade-strategy --from --profile
  --config`);

/** Each tool's one-letter options that take a value (`-w` is a workspace to npm and a flag to pnpm). */
const SHORT_VALUED = keyTable<readonly string[]>({
  npm: names('-C -w -c -L'),
  pnpm: names('-C -F'),
  bun: names('-c'),
  'pip pip3': names('-r -c -e -t -i -f'),
  uv: names('-p -r -c -e -f'),
  poetry: names('-C -P -E -G'),
  pdm: names('-p -G'),
  hatch: names('-e'),
  twine: names('-r -u -p -c'),
  'conda mamba micromamba': names('-n -p -c'),
  cargo: names('-p -F -j -Z'),
  gem: names('-v -s -i -n'),
  'bundle bundler': names('-j'),
  composer: names('-d'),
  'apt apt-get aptitude': names('-o -t -c'),
  'dnf yum microdnf': names('-c'),
  pacman: names('-r -b'),
  go: names('-C -o'),
});

export interface PackageCall {
  /** The operands: the subcommand and what it acts on, option values skipped (`npm -w a pkg set k=v` → pkg set k=v). */
  path: string[];
  /** Where the subcommand (path[0]) stands among the arguments; -1 when there is none. */
  at: number;
  /** Every argument as written. */
  words: string[];
  /** A package manager of the project's dependencies (npm, pip, cargo...) rather than of the machine (apt, brew...). */
  project: boolean;
}

/** npm's commands; npm takes any unambiguous beginning of one (`npm pub` publishes). */
const NPM_COMMANDS = names(`access adduser audit bugs cache ci completion config dedupe deprecate diff dist-tag docs
  doctor edit exec explain explore find-dupes fund get help help-search hook init install install-ci-test install-test
  link ll login logout ls org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart root
  run run-script sbom search set shrinkwrap star stars start stop team test token undeprecate uninstall unpublish
  unstar update version view whoami`);
/** npm's other names for its commands. */
const NPM_ALIASES = keyTable({
  x: 'exec',
  'i in ins inst insta instal isnt isnta isntal isntall add': 'install',
  'un unlink remove rm r': 'uninstall',
  c: 'config',
  't tst': 'test',
  'up upgrade udpate': 'update',
  rb: 'rebuild',
  ln: 'link',
  'dist-tags': 'dist-tag',
  author: 'owner',
  'v info show': 'view',
  'run-script rum urn': 'run',
});

/** The command npm runs for what was typed: an alias, or the one command the word begins. */
function npmCommand(word: string): string {
  const alias = NPM_ALIASES[word];
  if (alias !== undefined || NPM_COMMANDS.includes(word)) return alias ?? word;
  const begun = NPM_COMMANDS.filter((c) => c.startsWith(word));
  return begun.length === 1 ? begun[0]! : word;
}

/**
 * The words in front of the real command: yarn's `workspace NAME` and `workspaces foreach`, a toolchain
 * (`cargo +nightly`), a version (`bundle _2.4.0_`).
 */
function prefixLength(name: string, operands: readonly Word[]): number {
  const [first, second] = operands.map((o) => o.text);
  if (name === 'yarn' && (first === 'workspace' || (first === 'workspaces' && second === 'foreach'))) return 2;
  return /^\+[\w.-]+$|^_[\d.]+_$/.test(first ?? '') ? 1 : 0;
}

/** Reads a package manager's command line; undefined for a name that is not one. */
export function packageCall(cmd: Argv): PackageCall | undefined {
  const name = cmd.name ?? '';
  const project = PROJECT_MANAGERS.includes(name);
  if (!project && !SYSTEM_MANAGERS.includes(name)) return undefined;
  const all = parseFlags(cmd.args, [...LONG_VALUED, ...(SHORT_VALUED[name] ?? [])]).operands;
  const operands = all.slice(prefixLength(name, all));
  const path = operands.map((o) => o.text);
  if (name === 'npm' && path[0] !== undefined) path[0] = npmCommand(path[0]);
  return {
    path,
    at: operands.length > 0 ? cmd.args.indexOf(operands[0]!) : -1,
    words: cmd.args.map((a) => a.text),
    project,
  };
}

/** A judgement of one package manager command (what it installs, publishes, sets, runs...), kept with its threat class. */
export type PackageCheck = (call: PackageCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
