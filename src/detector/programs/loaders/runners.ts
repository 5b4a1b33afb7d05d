// Project code that runners and tools load by convention, read when they are about to run: pytest (conftest.py,
// test modules, -p plugins, its ini addopts), unittest discovery, noxfile.py, tasks.py, fabfile.py, dodo.py, setup.py
// for `pip install .`, tox's commands; Node test runners (config, test files) and tools' config files (eslint,
// webpack, vite, ...); justfile recipes, Taskfile and deno tasks, Rakefile, composer scripts; the hook managers'
// commands (pre-commit, lefthook, lint-staged). Each is judged like the program or command line it is. Pure.
import { parse as parseYaml } from 'yaml';
import { keyTable, names } from '../../engine/names.js';
import type { Argv } from '../../engine/argv.js';
import type { CheckContext } from '../../checks/types.js';
import { literal } from '../../engine/words.js';
import { discover } from './discover.js';
import { pythonCandidates } from './program-loads.js';
import { dirOf, joinKey } from './run-file.js';

const here = (ctx: CheckContext): string | undefined => {
  const k = ctx.keyOf('.');
  if (k === null) ctx.add('unread-script', 'a runner loads project files from a directory known only at run time');
  return typeof k === 'string' ? k : undefined;
};

type Runner = (cmd: Argv, ctx: CheckContext) => void;

/** A runner of files found from where the command runs (`root`): nothing is read when that is known only at run time. */
const rooted =
  (run: (cmd: Argv, ctx: CheckContext, root: string) => void): Runner =>
  (cmd, ctx) => {
    const root = here(ctx);
    if (root !== undefined) run(cmd, ctx, root);
  };

/** Operands of a runner that name files or directories (not option values). */
function pathOperands(cmd: Argv, valueOpts: RegExp): string[] {
  const out: string[] = [];
  const a = cmd.args;
  for (let i = 0; i < a.length; i += 1) {
    const t = a[i]!.text;
    if (t === '--') continue;
    if (t.startsWith('-')) {
      if (valueOpts.test(t) && !t.includes('=')) i += 1;
      continue;
    }
    if (!a[i]!.dynamic) out.push(t.replace(/::.*$/, ''));
  }
  return out;
}

/** A setting in an ini or TOML file (`addopts = -p x`, `addopts = ["-p", "x"]`). */
function setting(text: string, key: string): string | undefined {
  const m = new RegExp(String.raw`^\s*${key}\s*=\s*(.*(?:\n[ \t]+\S.*)*)`, 'm').exec(text);
  return m?.[1]!.replace(/[[\]",']/g, ' ').trim();
}

const settingWords = (text: string, key: string): string[] => (setting(text, key) ?? '').split(/\s+/).filter(Boolean);

/** The word after the first of `opts` on the command line (`-f FILE`), when it is there. */
function optionValue(cmd: Argv, opts: RegExp): string | undefined {
  const i = cmd.args.findIndex((a) => opts.test(a.text));
  return i < 0 ? undefined : cmd.args[i + 1]?.text;
}

const fileText = (ctx: CheckContext, key: string): string | undefined => {
  const f = ctx.readFile(key);
  return f && 'text' in f ? f.text : undefined;
};

const PYTEST_VALUES =
  /^(-k|-m|-p|-c|-o|-n|-W|--rootdir|--confcutdir|--basetemp|--maxfail|--tb|--durations|--junitxml|--junit-xml|--cov|--cov-report|--log-level|--import-mode|--deselect|--ignore|--ignore-glob|--override-ini|--config-file|--timeout|--reruns|--dist|--numprocesses)$/;

/** pytest: conftest.py files, test modules, plugins named with -p (command line, PYTEST_ADDOPTS, ini addopts). */
function pytest(cmd: Argv, ctx: CheckContext, root: string): void {
  const ini = ['pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg']
    .map((f) => fileText(ctx, joinKey(root, f)))
    .join('\n');
  const addopts = [setting(ini, 'addopts') ?? '', ctx.commandEnv.get('PYTEST_ADDOPTS')?.text ?? ''].join(' ');
  const pythonpath = settingWords(ini, 'pythonpath').map((p) => joinKey(root, p));
  const roots = [root, ...pythonpath];
  const plugins = [
    ...`${cmd.args.map((a) => a.text).join(' ')} ${addopts}`.matchAll(/(?:^|\s)-p\s*(?!no:)([\w.]+)/g),
  ].map((m) => m[1]!);
  for (const p of plugins)
    for (const r of roots) for (const key of pythonCandidates(r, p)) ctx.loads(key, 'python', { file: key, roots });
  const given = pathOperands(cmd, PYTEST_VALUES);
  const testpaths = settingWords(ini, 'testpaths');
  const targets = (given.length > 0 ? given : testpaths.length > 0 ? testpaths : ['.']).map((p) => joinKey(root, p));
  const patterns = (setting(ini, 'python_files') ?? 'test_*.py *_test.py').split(/\s+/).map(globRe);
  const files = targets.filter((t) => /\.py$/.test(t));
  const testDirs = targets.filter((t) => !/\.py$/.test(t));
  const walked = discover(ctx, 'pytest', testDirs, (n) => n === 'conftest.py' || patterns.some((re) => re.test(n)));
  if (walked === undefined) return;
  // conftest.py of the root and of every directory between it and each test.
  const conftests = new Set([joinKey(root, 'conftest.py')]);
  for (const f of [...files, ...walked])
    for (let d = dirOf(f); d !== root && d !== '.' && d !== '/' && d.length >= root.length; d = dirOf(d))
      conftests.add(joinKey(d, 'conftest.py'));
  for (const key of [...conftests, ...files, ...walked])
    ctx.loads(key, 'python', { file: key, roots: [dirOf(key), ...roots] });
}

const globRe = (g: string): RegExp =>
  new RegExp(
    `^${g
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** unittest's options that take a value (not a module to run). */
const UNITTEST_VALUES = /^(-s|-p|-t|--start-directory|--pattern|--top-level-directory|-k)$/;

/** python -m unittest [discover -s DIR -p PATTERN | module.names | files]. */
function unittest(cmd: Argv, ctx: CheckContext, root: string): void {
  const w = cmd.args.map((a) => a.text);
  const modules = w.filter((t, i) => !t.startsWith('-') && t !== 'discover' && !UNITTEST_VALUES.test(w[i - 1] ?? ''));
  if (modules.length > 0 && w[0] !== 'discover') {
    for (const key of modules.flatMap((m) => (/\.py$/.test(m) ? [joinKey(root, m)] : pythonCandidates(root, m))))
      ctx.loads(key, 'python', { file: key, roots: [root] });
    return;
  }
  // The word after the option, when it is there (`-q` alone must not be read as a directory).
  const start = optionValue(cmd, /^(-s|--start-directory)$/) ?? '.';
  const pattern = globRe(optionValue(cmd, /^(-p|--pattern)$/) ?? 'test*.py');
  const files = discover(ctx, 'unittest', [joinKey(root, start)], (n) => pattern.test(n));
  for (const key of files ?? []) ctx.loads(key, 'python', { file: key, roots: [root, dirOf(key)] });
}

/** A runner that loads a file of the project by its name or an option (nox's noxfile.py, invoke's tasks.py, Gemfile). */
function projectFile(language: string, files: string[], fileOpts?: RegExp): Runner {
  return rooted((cmd, ctx, root) => {
    const chosen = fileOpts && optionValue(cmd, fileOpts);
    for (const key of (chosen ? [chosen] : files).map((n) => joinKey(root, n)))
      ctx.loads(key, language, { file: key, roots: [root] });
  });
}

/** tox runs each environment's `commands =` lines. */
function tox(_cmd: Argv, ctx: CheckContext, root: string): void {
  for (const f of ['tox.ini', 'setup.cfg', 'pyproject.toml']) {
    const text = fileText(ctx, joinKey(root, f));
    for (const m of (text ?? '').matchAll(/^\s*commands(?:_pre|_post)?\s*=\s*(.*(?:\n[ \t]+\S.*)*)/gm))
      for (const line of m[1]!.split('\n'))
        if (line.trim() !== '') ctx.script(line.trim().replace(/^["']|["'],?$/g, ''));
  }
}

/** pip install . / -e . / wheel . and python -m build run the project's setup.py. */
function setupPy(cmd: Argv, ctx: CheckContext): void {
  const w = cmd.args.map((a) => a.text);
  const local = w.find((t, i) => i > 0 && /^(\.{1,2}(\/[\w.-]*)*|\.\/[\w./-]+)$/.test(t));
  const sub = w[0] === 'pip' ? (w[1] ?? '') : (w[0] ?? '');
  if (/^(pip3?|uv)$/.test(cmd.name ?? '') && !(local && /^(install|wheel|download)$/.test(sub))) return;
  const root = here(ctx);
  if (root === undefined) return;
  const key = joinKey(joinKey(root, local ?? '.'), 'setup.py');
  ctx.loads(key, 'python', { file: key, roots: [dirOf(key)] });
}

const JS_TEST = /\.(test|spec)\.[cm]?[jt]sx?$|^(test|.*[-_]test|test[-_].*)\.[cm]?js$/;
/** Node tools whose config file is `<tool>.config.js` (or another JS_EXT). */
const NAMED_CONFIG = names('jest playwright cypress ava webpack vite rollup next nuxt astro postcss tsup svelte remix');
/** Node tools and the base names of their config files. */
const JS_CONFIG: Record<string, readonly string[]> = keyTable({
  ...Object.fromEntries(NAMED_CONFIG.map((tool) => [tool, [`${tool}.config`]])),
  docusaurus: names('docusaurus.config'),
  vitest: names('vitest.config vite.config vitest.workspace'),
  mocha: names('.mocharc'),
  eslint: names('eslint.config .eslintrc'),
  prettier: names('prettier.config .prettierrc'),
  'webpack-cli': names('webpack.config'),
  tailwindcss: names('tailwind.config'),
  babel: names('babel.config .babelrc'),
  gulp: names('gulpfile'),
  grunt: names('Gruntfile gruntfile'),
  karma: names('karma.conf'),
  'svelte-kit': names('svelte.config'),
  eleventy: names('.eleventy eleventy.config'),
  storybook: names('.storybook/main'),
  'lint-staged': names('lint-staged.config .lintstagedrc'),
});
const JS_EXT = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];
const TEST_RUNNERS = new Set(['jest', 'vitest', 'mocha', 'playwright', 'ava', 'tap', 'cypress']);

/** Node test runners' options that take a value (not a path of tests). */
const NODE_TEST_VALUES =
  /^(-c|--config|-t|--testNamePattern|--reporter|--project|-g|--grep|--timeout|--workers|-j|--shard|--env|--spec|--browser)$/;

/** Node tools: their config files, and for test runners the test files they collect. */
function nodeTool(cmd: Argv, ctx: CheckContext, root: string): void {
  const name = cmd.name === 'node' ? 'node-test' : cmd.name!;
  const w = cmd.args.map((a) => a.text);
  const chosen = optionValue(cmd, /^(-c|--config|--configFile)$/);
  const configs = chosen ? [chosen] : (JS_CONFIG[name] ?? []).flatMap((b) => JS_EXT.map((e) => `${b}${e}`));
  for (const key of configs.map((c) => joinKey(root, c))) ctx.loads(key, 'javascript', { file: key, roots: [] });
  if (!TEST_RUNNERS.has(name) && name !== 'node-test') return;
  // cypress open, playwright codegen: no tests run; `vitest run a.test.ts` narrows to the files named.
  if ((name === 'cypress' && w[0] !== 'run') || (name === 'playwright' && w[0] !== 'test')) return;
  const given = pathOperands(cmd, NODE_TEST_VALUES).filter((p) => !/^(run|watch|test|related|bench|dev)$/.test(p));
  const files = given.filter((g) => /\.[cm]?[jt]sx?$/.test(g)).map((g) => joinKey(root, g));
  const dirs = given.filter((g) => !/\.[cm]?[jt]sx?$/.test(g)).map((g) => joinKey(root, g));
  const walked = discover(
    ctx,
    name,
    files.length > 0 && dirs.length === 0 ? [] : dirs.length > 0 ? dirs : [root],
    (n, dir) => JS_TEST.test(n) || (/(^|\/)(__tests__|test|tests)$/.test(dir) && /\.[cm]?[jt]sx?$/.test(n)),
  );
  for (const key of [...files, ...(walked ?? [])]) ctx.loads(key, 'javascript', { file: key, roots: [] });
}

/** justfile recipes: indented lines under `name:` are shell command lines. */
function just(cmd: Argv, ctx: CheckContext, root: string): void {
  const chosen = optionValue(cmd, /^(-f|--justfile)$/);
  for (const name of chosen ? [chosen] : ['justfile', 'Justfile', '.justfile']) {
    const text = fileText(ctx, joinKey(root, name));
    if (text === undefined) continue;
    for (const line of text.split('\n')) {
      if (!/^[ \t]+\S/.test(line)) continue;
      const c = line.trim().replace(/^[@-]+/, '');
      // {{var}} interpolations are the recipe's parameters: what they are is known only when it runs.
      if (/\{\{/.test(c)) ctx.add('dynamic-command', `justfile recipe built from parameters: ${c.slice(0, 80)}`);
      ctx.script(c.replace(/\{\{[^}]*\}\}/g, 'x'));
    }
  }
}

/** Taskfile.yml (task), deno.json tasks, composer.json scripts, .pre-commit-config.yaml and lefthook.yml commands. */
function configCommands(files: string[], pick: (doc: unknown) => string[]): Runner {
  return rooted((_cmd, ctx, root) => {
    for (const f of files) {
      const text = fileText(ctx, joinKey(root, f));
      if (text === undefined) continue;
      let doc: unknown;
      try {
        doc = /\.json$/.test(f) ? JSON.parse(text) : parseYaml(text);
      } catch {
        continue; // the tool refuses a file it cannot parse
      }
      for (const c of pick(doc)) {
        if (/^@php\s+/.test(c)) ctx.runsFile(literal(c.replace(/^@php\s+/, '').split(/\s+/)[0]!), 'php');
        else if (/^[\w\\]+::\w+$/.test(c)) ctx.add('unread-script', `${f} runs PHP code by class name: ${c}`);
        else ctx.script(c.replace(/^@/, ''));
      }
    }
  });
}

/** Every string in a parsed document (an array's items in order). */
const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];
const field = (v: unknown, key: string): unknown =>
  v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;

const taskfile = configCommands(['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'Taskfile.dist.yml'], (doc) =>
  Object.values((field(doc, 'tasks') as Record<string, unknown>) ?? {}).flatMap((t) => {
    const cmds = field(t, 'cmds') ?? t;
    if (typeof cmds === 'string') return [cmds];
    return Array.isArray(cmds) ? strings(cmds.map((c) => (typeof c === 'string' ? c : field(c, 'cmd')))) : [];
  }),
);
const denoTasks = configCommands(['deno.json', 'deno.jsonc'], (doc) => strings(field(doc, 'tasks')));
const composer = configCommands(['composer.json'], (doc) => strings(field(doc, 'scripts')));
/** A list in a parsed document; anything else (`repos: 3`) pre-commit refuses, so nothing of it runs. */
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const preCommit = configCommands(['.pre-commit-config.yaml', '.pre-commit-config.yml'], (doc) =>
  list(field(doc, 'repos')).flatMap((r) =>
    field(r, 'repo') === 'local' ? list(field(r, 'hooks')).flatMap((h) => strings(field(h, 'entry'))) : [],
  ),
);
const lefthook = configCommands(['lefthook.yml', 'lefthook.yaml', '.lefthook.yml', 'lefthook-local.yml'], (doc) =>
  Object.values((doc as Record<string, unknown>) ?? {}).flatMap((hook) =>
    ['commands', 'scripts']
      .flatMap((k) => Object.values((field(hook, k) as Record<string, unknown>) ?? {}))
      .flatMap((c) => strings(field(c, 'run'))),
  ),
);
const lintStaged = configCommands(
  ['package.json', '.lintstagedrc', '.lintstagedrc.json', '.lintstagedrc.yaml', '.lintstagedrc.yml'],
  (doc) => strings(field(doc, 'lint-staged') ?? (field(doc, 'name') === undefined ? doc : undefined)),
);

/** Rakefile and rakelib/*.rake: Ruby code rake loads. */
function rake(_cmd: Argv, ctx: CheckContext, root: string): void {
  for (const f of ['Rakefile', 'rakefile', 'Rakefile.rb'])
    ctx.loads(joinKey(root, f), 'ruby', { file: joinKey(root, f), roots: [root] });
  for (const key of discover(ctx, 'rake', [joinKey(root, 'rakelib')], (n) => /\.rake$/.test(n), { depth: 2 }) ?? [])
    ctx.loads(key, 'ruby', { file: key, roots: [root] });
}

const nodeTools = rooted(nodeTool);
const gemfile = projectFile('ruby', ['Gemfile']);

const RUNNERS: Record<string, Runner> = keyTable({
  'pytest py.test pytest-3': rooted(pytest),
  unittest: rooted(unittest),
  nox: projectFile('python', ['noxfile.py'], /^(-f|--noxfile)$/),
  'invoke inv': projectFile('python', ['tasks.py', 'tasks/__init__.py'], /^(-c|--collection)$/),
  fab: projectFile('python', ['fabfile.py', 'fabfile/__init__.py'], /^(-f|--fabfile)$/),
  doit: projectFile('python', ['dodo.py'], /^(-f|--file)$/),
  scons: projectFile('python', ['SConstruct', 'Sconstruct', 'sconstruct'], /^(-f|--file|--makefile|--sconstruct)$/),
  tox: rooted(tox),
  'pip pip3 uv build': setupPy,
  just: rooted(just),
  'task go-task': taskfile,
  deno: (cmd, ctx) => (cmd.args[0]?.text === 'task' ? denoTasks(cmd, ctx) : undefined),
  // Any one word: composer's own commands and the project's scripts by name (`composer test`, `composer app:build`).
  composer: (cmd, ctx) => (/^[\w:-]+$/.test(cmd.args[0]?.text ?? 'install') ? composer(cmd, ctx) : undefined),
  'pre-commit': (cmd, ctx) =>
    /^(run|hook-impl|try-repo)$/.test(cmd.args[0]?.text ?? 'run') ? preCommit(cmd, ctx) : undefined,
  lefthook: (cmd, ctx) => (cmd.args[0]?.text === 'run' ? lefthook(cmd, ctx) : undefined),
  'lint-staged': (cmd, ctx) => {
    lintStaged(cmd, ctx);
    nodeTools(cmd, ctx);
  },
  rake: rooted(rake),
  // bundle install/exec evaluates the Gemfile (Ruby code).
  bundle: (cmd, ctx) =>
    /^(install|exec|update|check|lock)$/.test(cmd.args[0]?.text ?? 'install') ? gemfile(cmd, ctx) : undefined,
  ...Object.fromEntries(
    Object.keys(JS_CONFIG)
      .filter((n) => n !== 'lint-staged')
      .map((n) => [n, nodeTools]),
  ),
  tap: nodeTools,
});

/** Judges the project files a runner or tool is about to load; `node --test` collects test files too. */
export function projectRunner(cmd: Argv, ctx: CheckContext): void {
  if (cmd.name === null) return;
  if (cmd.name === 'node' && cmd.args.some((a) => a.text === '--test')) nodeTools(cmd, ctx);
  // python is no runner here: python -m build / python -m pip install . are judged through the module's command line.
  if (Object.hasOwn(RUNNERS, cmd.name)) RUNNERS[cmd.name]!(cmd, ctx);
}
