// Supply chain: packages whose names imitate popular ones (`lodahs`, `crossenv`, `python3-dateutil`), installs from an
// index anyone can upload to or that is read without TLS or signatures (`--extra-index-url` of an unknown host,
// test.pypi.org, `http://` repositories, `--allow-untrusted`, `--nogpgcheck`), lockfiles edited as text, install
// scripts and dependencies pointed at fetched code (`npm pkg set scripts.postinstall=...`), and machine-wide package
// settings written to files (`registry=` in ~/.npmrc) or through `go env -w`. Registry installs stay ordinary. Pure.
import type { Word } from '../engine/words.js';
import { configSetting, goSetting } from './settings.js';
import { show, type Check, type CheckContext } from './types.js';
import { judges } from './registry.js';
import { keyTable } from '../engine/names.js';
import type { SedCheck } from '../programs/sed/call.js';
import type { PackageCheck } from '../programs/packages/call.js';

/** Well-known packages, by ecosystem: a name one typo away from one of them (and not itself listed) asks. */
const POPULAR: Record<'npm' | 'pypi', Set<string>> = {
  npm: new Set(
    `react react-dom vue angular svelte preact next nuxt express koa fastify hapi lodash underscore ramda axios
    node-fetch request got superagent moment dayjs luxon date-fns chalk colors commander yargs minimist inquirer debug
    dotenv cross-env cross-spawn rimraf mkdirp glob minimatch semver uuid nanoid classnames clsx typescript tslib
    webpack rollup vite esbuild parcel babel-core eslint prettier jest mocha chai sinon vitest ts-node nodemon
    body-parser cookie-parser cors helmet morgan mongoose sequelize prisma knex redis ioredis socket.io ws jsonwebtoken
    bcrypt bcryptjs passport zod yup joi ajv immer redux mobx rxjs jquery bootstrap tailwindcss postcss autoprefixer
    sass less styled-components emotion electron puppeteer playwright cheerio jsdom marked handlebars ejs pug mustache
    async bluebird q fs-extra graceful-fs chokidar execa shelljs ora boxen figlet yaml js-yaml xml2js papaparse
    qs query-string form-data formidable multer sharp jimp canvas bignumber.js decimal.js crypto-js node-forge
    event-stream coffee-script gulp grunt bower browserify uglify-js terser core-js regenerator-runtime lerna nx turbo
    concurrently npm-run-all husky lint-staged`.split(/\s+/),
  ),
  pypi: new Set(
    `requests urllib3 certifi idna charset-normalizer chardet six setuptools wheel pip numpy pandas scipy matplotlib
    seaborn scikit-learn tensorflow torch torchvision keras jax flask django fastapi starlette uvicorn gunicorn
    pydantic sqlalchemy alembic psycopg2 psycopg2-binary pymysql redis celery boto3 botocore awscli s3transfer
    python-dateutil pytz tzdata pyyaml jinja2 markupsafe click rich typer colorama tqdm attrs packaging pyparsing
    cryptography pyopenssl paramiko bcrypt pycryptodome jwt pyjwt httpx aiohttp httplib2 beautifulsoup4 lxml
    selenium scrapy pillow opencv-python openai anthropic transformers datasets tokenizers huggingface-hub
    pytest coverage tox black flake8 pylint mypy isort ruff poetry virtualenv pipenv docker kubernetes ansible
    jsonschema simplejson ujson orjson protobuf grpcio google-auth google-api-python-client azure-core
    python-dotenv dotenv pymongo elasticsearch networkx sympy nltk spacy gensim xgboost lightgbm plotly dash
    streamlit gradio openpyxl xlrd pyarrow dask numba cython cattrs scapy`.split(/\s+/),
  ),
};

/** Edit distance with adjacent swaps (`lodahs`/`lodash`), stopping early past 1. */
function withinOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j += 1) d[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]! <= 1;
}

const squash = (name: string): string => name.replace(/[-_.]/g, '');

/** The popular package `name` imitates, if any: one typo, separators dropped, or a python/js/node affix. */
export function imitated(name: string, ecosystem: 'npm' | 'pypi'): string | undefined {
  const popular = POPULAR[ecosystem];
  const n = name.toLowerCase().replace(/\[.*$/, '');
  if (popular.has(n) || n.length < 5 || n.startsWith('@')) return undefined;
  for (const p of popular) {
    if (p.length < 5) continue;
    if (withinOne(n, p) || squash(n) === squash(p)) return p;
    const affixed = n.replace(/^(python3?|py|node|js)[-_]?|[-_]?(python3?|py|js|node)$/, '');
    if (affixed !== n && (affixed === p || p.replace(/^python-/, '') === affixed) && !popular.has(n)) return p;
  }
  return undefined;
}

const ECOSYSTEM = keyTable<'npm' | 'pypi'>({ 'npm pnpm yarn bun': 'npm', 'pip pip3 uv poetry pipx pdm': 'pypi' });
const INSTALL_VERBS = /^(install|i|add|in|ins|inst|isntall)$/;

/** Hosts of package indexes that are not the default, yet are widely used for their vendor's wheels. */
const KNOWN_INDEX =
  /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\]|download\.pytorch\.org|pypi\.nvidia\.com|data\.pyg\.org|storage\.googleapis\.com\/jax-releases|pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org)(:\d+)?(\/|$)/i;
/** An index anyone can upload to, or one read without TLS from another machine. */
const UNTRUSTED_INDEX = /^https?:\/\/test\.pypi\.org\b|^http:\/\/(?!(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$))/i;
/** Install flags that switch off signature or TLS checks. */
const UNVERIFIED =
  /^--?(allow-untrusted|allow-unauthenticated|allow-insecure[\w-]*|nogpgcheck|no-gpg-checks?|nosignature|nodigest|no-verify-ssl|insecure|dangerous|skip-signature[\w-]*|ignore-signatures?|trusted-host|disable-tls|no-check-certificate|force-bad-verify|unsigned|skip-verif\w*)(=|$)|^Acquire::(AllowInsecureRepositories|AllowDowngradeToInsecureRepositories|https::Verify-Peer)=(true|false)$|^APT::Get::AllowUnauthenticated=true$|^--setopt=([\w.-]+\.)?(gpgcheck|repo_gpgcheck|sslverify)=(0|false|no)$/i;
const INDEX_OPT = /^--?(extra-index-url|index-url|i|index|registry|repository|repo|source|find-links|f|c|channel)$/;

/** Every installer: package names against look-alikes, indexes and flags against the checks they skip. */
export const packageInstall: PackageCheck = ({ path, words }, cmd, _io, ctx) => {
  // `npm run dev -- --insecure`: a project script's own flags.
  if (/^(run|run-script|test|start|exec|x|dlx)$/.test(path[0] ?? '')) return;
  if (words.some((w) => UNVERIFIED.test(w))) ctx.add('supply-chain', `${show(cmd)} (signature or TLS checks off)`);
  for (let i = 0; i < words.length; i += 1) {
    const [opt, inline] = words[i]!.includes('=') ? words[i]!.split(/=(.*)/s) : [words[i]!, undefined];
    if (!INDEX_OPT.test(opt!)) continue;
    const url = inline ?? words[i + 1] ?? '';
    if (UNTRUSTED_INDEX.test(url) || (/extra-index-url/.test(opt!) && /^https?:/.test(url) && !KNOWN_INDEX.test(url)))
      ctx.add('supply-chain', `${show(cmd)} (packages from ${url})`);
  }
  const eco = ECOSYSTEM[cmd.name ?? ''];
  const at = path.findIndex((w) => INSTALL_VERBS.test(w));
  if (!eco || at < 0 || (cmd.name === 'uv' && path[0] !== 'pip' && path[0] !== 'add')) return;
  for (const w of path.slice(at + 1)) {
    const name = w.replace(/(?<=.)@.*$/, '').replace(/[<>=!~;].*$/, '');
    const original = /^[\w.-]+$/.test(name) ? imitated(name, eco) : undefined;
    if (original) ctx.add('supply-chain', `${show(cmd)} (${name} imitates ${original})`);
  }
};

/** `npm pkg set scripts.postinstall=CMD dependencies.x=git+https://...`: the script is judged as if it ran. */
export const packageJsonSet: PackageCheck = ({ path }, cmd, _io, ctx) => {
  if (path[0] !== 'pkg' || path[1] !== 'set') return;
  for (const w of path.slice(2)) {
    const m = /^(scripts|dependencies|devDependencies|optionalDependencies|peerDependencies)\.([^=]+)=(.*)$/s.exec(w);
    if (!m) continue;
    if (m[1] === 'scripts') {
      // Lifecycle scripts run by themselves on the next install; any script that fetches is worth a look.
      if (/^(pre|post)?install$|^prepare$|^prepublish/.test(m[2]!) && /\b(curl|wget|https?:\/\/|nc)\b/.test(m[3]!))
        ctx.add('supply-chain', show(cmd));
      ctx.script(m[3]!);
    } else if (/^(git\+|git:|github:|https?:|ssh:|file:\/)/.test(m[3]!)) ctx.add('supply-chain', show(cmd));
  }
};

/** jq/yq programs that point a dependency at a URL or repository, or add an install script. */
const jsonEdit: Check = (cmd, _io, ctx) => {
  const program = cmd.args.map((a) => a.text).join(' ');
  if (/[dD]ependencies/.test(program) && /["'](git\+|git:|github:|https?:\/\/|ssh:)/.test(program))
    ctx.add('supply-chain', show(cmd));
  if (/scripts[."[\]]*(pre|post)?install\b/.test(program) && /\b(curl|wget|https?:\/\/)/.test(program))
    ctx.add('supply-chain', show(cmd));
};

/** Lockfiles: generated by the package manager, their URLs and hashes are what gets installed. */
const LOCKFILE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|poetry\.lock|Pipfile\.lock|uv\.lock|pdm\.lock|Cargo\.lock|go\.sum|Gemfile\.lock|composer\.lock|packages\.lock\.json|gradle\.lockfile|mix\.lock|pubspec\.lock|Podfile\.lock|flake\.lock)$/;

/** `sed -i ... package-lock.json`, `perl -pi -e ... yarn.lock`: a lockfile rewritten as text. */
const lockEdit: Check = (cmd, _io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  const inPlace = words.some((w) => /^(-[a-zA-Z]*i\w*|--in-place)(=.*)?$/.test(w));
  if (inPlace && words.some((w) => LOCKFILE.test(w))) ctx.add('supply-chain', `${show(cmd)} (lockfile edited)`);
};

/** sed -i on a lockfile. */
export const sedLockEdit: SedCheck = ({ inPlace, files }, cmd, _io, ctx) => {
  if (inPlace && files.some((f) => LOCKFILE.test(f.text))) ctx.add('supply-chain', `${show(cmd)} (lockfile edited)`);
};

/** Package managers' settings for the whole machine (the user's home or /etc), written as files. */
const MACHINE_SETTINGS =
  /^(~|\$HOME|\$\{HOME\}|\/home\/[^/]+|\/root|\/Users\/[^/]+|\/etc)\/(\.npmrc|\.yarnrc(\.yml)?|npmrc|\.pypirc|\.pip\/pip\.conf|\.config\/pip\/pip\.conf|pip\.conf|\.gemrc|gemrc|\.cargo\/config(\.toml)?|\.m2\/settings\.xml|\.condarc|\.config\/uv\/uv\.toml|\.bunfig\.toml|\.config\/go\/env|\.composer\/config\.json|\.config\/composer\/config\.json|\.nuget\/NuGet\/NuGet\.Config|apk\/repositories|apt\/sources\.list(\.d\/.*)?|yum\.repos\.d\/.*)$/;

/** `echo 'registry=https://...' >> ~/.npmrc`: each `key=value` (or `key: value`) line judged as that tool's setting. */
export function packageSettingsWrite(target: Word, text: string | undefined, detail: string, ctx: CheckContext): void {
  if (text === undefined || !MACHINE_SETTINGS.test(target.text)) return;
  for (const line of text.split('\n')) {
    const m = /^\s*([\w.:@/-]+)\s*[=:]\s*(\S.*)$/.exec(line);
    if (m) configSetting(m[1]!, m[2]!, detail, ctx);
    if (/^\s*(deb|https?:\/\/|baseurl)/.test(line) && UNTRUSTED_INDEX.test(/https?:\/\/\S+/.exec(line)?.[0] ?? ''))
      ctx.add('supply-chain', detail);
  }
}

/** `go env -w GOPROXY=... GOSUMDB=off GOINSECURE=*`: module sources and checksum checks for every later build. */
export const goEnv: PackageCheck = ({ path, words }, cmd, _io, ctx) => {
  if (cmd.name !== 'go' || path[0] !== 'env' || !words.includes('-w')) return;
  for (const m of path.map((w) => /^(GO\w+)=(.*)$/.exec(w))) if (m) goSetting(m[1]!, m[2]!, show(cmd), ctx);
};

/** `composer config secure-http false`, `composer config repo.packagist composer http://...`. */
export const composerConfig: PackageCheck = ({ path }, cmd, _io, ctx) => {
  if (cmd.name !== 'composer' || path[0] !== 'config') return;
  if (path[1] === 'secure-http' && /^(false|0)$/.test(path[2] ?? '')) ctx.add('security-posture', show(cmd));
  const url = path.slice(2).find((w) => /^https?:\/\//.test(w));
  if (/^(repo|repositories)\b/.test(path[1] ?? '') && url && (UNTRUSTED_INDEX.test(url) || !KNOWN_INDEX.test(url)))
    ctx.add('source-redirect', show(cmd));
};

judges(import.meta.url, { 'jq yq': jsonEdit, perl: lockEdit });
