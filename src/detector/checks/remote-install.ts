// Code installed or run from outside a package registry: a package given as a URL, a git repository or an address
// (`pip install git+https://...`, `npm install https://host/x.tgz`, `npx github:user/repo`, `cargo install --git`),
// and a program downloaded into a bin directory then run by its name. Its install scripts or the program itself run
// with no registry between the author and this machine. Registry installs stay ordinary. Judged for every command. Pure.
import { keyTable } from '../engine/names.js';
import type { Argv } from '../engine/argv.js';
import { show, type CheckContext } from './types.js';

/** A package source that is not a registry name: a VCS or HTTP URL, a forge shorthand, a raw address. */
const REMOTE_SPEC = /^(git\+[a-z]+:|git:\/\/|ssh:\/\/|git@|github:|gitlab:|bitbucket:|gist:|https?:\/\/)/i;
/** Registries' own download hosts. */
const REGISTRY_HOST =
  /^https?:\/\/(registry\.npmjs\.org|registry\.yarnpkg\.com|files\.pythonhosted\.org|pypi\.org|crates\.io|static\.crates\.io|rubygems\.org|repo1\.maven\.org|proxy\.golang\.org)\//i;

const remote = (spec: string): boolean => REMOTE_SPEC.test(spec) && !REGISTRY_HOST.test(spec);

const INSTALLERS = keyTable<RegExp>({
  npm: /^(install|i|add|in|ins|inst|isntall|exec|x)$/,
  pnpm: /^(install|i|add|dlx)$/,
  yarn: /^(add|dlx)$/,
  bun: /^(install|i|add|x)$/,
  'pip pip3 gem cargo': /^install$/,
  pipx: /^(install|run|inject)$/,
  uv: /^(add|pip|tool|run)$/,
  poetry: /^add$/,
  composer: /^require$/,
  deno: /^(install|run)$/,
});

export function checkRemoteInstall(cmd: Argv, ctx: CheckContext): void {
  // npx github:user/repo, bunx https://...: the wrapper leaves the spec as the command word.
  if (remote(cmd.written)) return ctx.add('remote-code-exec', `${show(cmd)} (run from ${cmd.written})`);
  const verbs = INSTALLERS[cmd.name ?? ''];
  const words = cmd.args.map((a) => a.text);
  const verb = words.find((w) => !w.startsWith('-'));
  if (verbs && verb !== undefined && verbs.test(verb)) {
    const spec = words.find(
      (w, i) =>
        remote(w.replace(/^[\w.-]+\s*@\s*/, '')) &&
        !/^--?(index-url|extra-index-url|registry|find-links|f|i)$/.test(words[i - 1] ?? ''),
    );
    const git = cmd.name === 'cargo' && words.some((w) => w === '--git' || w.startsWith('--git='));
    if (spec !== undefined || git)
      ctx.add('remote-code-exec', `${show(cmd)} (installed from ${spec ?? 'a git repository'})`);
  }
  // uvx --from git+https://..., pipx run --spec URL, uv run --with URL, npx --package github:...: the same, by option.
  if (/^(uvx|uv|pipx|npx|pnpx|bunx|pnpm|npm|yarn)$/.test(cmd.name ?? '')) {
    const at = words.findIndex(
      (w, i) =>
        /^--(from|spec|with|package)$|^-p$/.test(words[i - 1] ?? '') && remote(w.replace(/^[\w.-]+\s*@\s*/, '')),
    );
    const inline = words.find((w) => /^--(from|spec|with|package)=/.test(w) && remote(w.replace(/^[^=]*=/, '')));
    if (at >= 0 || inline !== undefined) ctx.add('remote-code-exec', `${show(cmd)} (run from ${inline ?? words[at]})`);
  }
  // wget URL -O ~/.local/bin/tool && tool: a download into a bin directory, run by its bare name.
  if (!cmd.written.includes('/') && [...ctx.downloaded].some((d) => d.endsWith(`/bin/${cmd.written}`)))
    ctx.add('remote-code-exec', `${cmd.written} was downloaded into a bin directory in this command line`);
}
