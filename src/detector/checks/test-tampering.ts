// Checks made to pass without running: CI steps replaced by no-ops or deleted (sed, yq del, continue-on-error, a
// pipeline file emptied or rewritten without a check, CI directories removed), code owners changed, test scripts and
// hooks turned into `exit 0`, assertions made trivially true, test collection emptied (conftest), coverage gates
// switched off, and hooks or CI skipped on a push to the main branch. Ordinary CI edits (versions, new steps) and
// ordinary test edits stay ordinary: what asks is a check replaced by nothing. Pure.
import type { Word } from '../engine/words.js';
import { isCiConfig } from './ci.js';
import { shortened, show, when, type CheckContext } from './types.js';
import { judges } from './registry.js';
import type { SedCheck } from '../programs/sed/call.js';
import type { PackageCheck } from '../programs/packages/call.js';

const CODEOWNERS = /(^|\/)(\.github\/|\.gitlab\/|docs\/|\.bitbucket\/)?CODEOWNERS$/;
const CHECK_SCRIPT =
  /(^|\/)(scripts?|bin|tools|ci|\.ci)\/[^/]*(test|check|lint|verify|coverage|audit|ci)[^/]*$|(^|\/)(run[-_]?tests?|tests?|check|lint|verify)\.(sh|bash|py|js|mjs|ts)$/i;
const HOOK_FILE = /(^|\/)(\.husky|\.githooks|\.git\/hooks|\.hooks|githooks|\.config\/husky)\/[^/]+$/;
const CI_DIR = /^(\.\/)?(\.circleci|\.github\/workflows|\.gitlab\/ci|\.buildkite|\.woodpecker|\.tekton)\/?$/;
const TEST_DIR = /^(\.\/)?(tests?|specs?|__tests__|e2e)\/?$/;

/** Words that name a check: running tests, linters, type checks, builds, scans. */
const CHECK_WORD =
  /\b(test|tests|pytest|jest|vitest|mocha|ava|tox|nox|rspec|phpunit|unittest|go\s+test|cargo\s+(test|clippy)|mvn|gradle|make|npm|yarn|pnpm|bun|tsc|eslint|ruff|mypy|flake8|pylint|lint|check|verify|build|compile|coverage|scan|audit|sonar|codeql|deploy|ctest|dotnet)\b/i;
/** A step that does nothing: true, `:`, exit 0, an echo. */
const NOOP = /^\s*["']?\s*(true|:|exit\s+0|echo\b[^\n]*|\/bin\/true|skip\w*)\s*["']?\s*;?\s*$/i;
/** An assertion or test made trivially true, or skipped. */
const TRIVIAL =
  /\bassert\s+(True|1|not\s+False)\b|\bexpect\(\s*(true|1)\s*\)|\bassert(True|That)\s*\(\s*(true|True|1)\s*\)|\bassertEquals?\s*\(\s*(\d+|true|"[^"]*")\s*,\s*\2\s*\)|@pytest\.mark\.skip|@unittest\.skip|\bpytest\.skip\(|\b(it|describe|test)\.skip\(|\bx(it|describe|test)\(|@Disabled\b|@Ignore\b|\bt\.Skip(Now)?\(/;
/** Test collection emptied (conftest) or every test deselected. */
const EMPTIED =
  /\bitems\.clear\(\)|\bitems\[:\]\s*=\s*\[\]|\bdel\s+items\[:\]|config\.hook\.pytest_deselected|--collect-only\b.*\|\|\s*true/;

const add = (ctx: CheckContext, detail: string, why: string): void => ctx.add('test-tampering', `${detail} (${why})`);

/** Text written onto a path (a redirect, tee, a file tool): judged by the file it lands in. */
export function checkWriteTampering(
  target: Word,
  text: string | undefined,
  append: boolean,
  detail: string,
  ctx: CheckContext,
): void {
  if (target.dynamic) return;
  const path = target.text.replace(/^["']|["']$/g, '');
  if (CODEOWNERS.test(path) && text !== undefined) add(ctx, detail, 'changes who must review changes');
  if (text === undefined) return;
  if (isCiConfig(path) && !append && !CHECK_WORD.test(text))
    add(ctx, detail, text.trim() === '' ? 'an empty pipeline' : 'a pipeline that runs no check');
  const exitsAtOnce = text.split('\n').some((l) => /^\s*(exit\s+0|true|:)\s*;?\s*$/.test(l));
  if ((CHECK_SCRIPT.test(path) || HOOK_FILE.test(path)) && exitsAtOnce)
    add(ctx, detail, 'a check script or hook that exits successfully at once');
  if (EMPTIED.test(text) || TRIVIAL.test(text)) add(ctx, detail, 'tests emptied or made trivially true');
}

/** sed -i script commands against a file: deletions, check-to-noop substitutions, trivial assertions, `exit 0` added. */
function sedTampering(script: string, files: Word[], detail: string, ctx: CheckContext): void {
  const paths = files.map((f) => f.text);
  const ci = paths.some((p) => isCiConfig(p) || CODEOWNERS.test(p));
  const scripts = paths.some((p) => CHECK_SCRIPT.test(p) || HOOK_FILE.test(p));
  for (const raw of script.split(/;|\n/)) {
    const c = raw.trim();
    if (paths.some((p) => CODEOWNERS.test(p))) return add(ctx, detail, 'changes who must review changes');
    if (ci && /^(\d+(,\d+)?|\/(?:\\.|[^/\\])*\/)\s*d$/.test(c)) add(ctx, detail, 'deletes pipeline steps');
    const s = /^s(.)((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1/.exec(c);
    if (s) {
      const [from, to] = [s[2]!, s[3]!];
      const dropped = CHECK_WORD.test(from) && !CHECK_WORD.test(to.replace(/["']/g, ''));
      if ((ci || scripts) && (dropped || NOOP.test(to.replace(/^[\s-]*(run|script|command):\s*/, ''))))
        add(ctx, detail, 'a check replaced by a no-op');
      if (TRIVIAL.test(to) || EMPTIED.test(to)) add(ctx, detail, 'assertions made trivially true');
    }
    if (scripts && /^\d*\s*[aic]\\?\s*(exit\s+0|true)\s*$/.test(c))
      add(ctx, detail, 'a check script made to exit at once');
    if (/^\d*\s*[aic]\\?\s*/.test(c) && (TRIVIAL.test(c) || EMPTIED.test(c)))
      add(ctx, detail, 'tests emptied or made trivially true');
  }
}

export const sedTests: SedCheck = ({ inPlace, scripts, files }, cmd, _io, ctx) => {
  if (inPlace) for (const s of scripts) sedTampering(s, files, show(cmd), ctx);
};

/** yq -i 'del(.jobs.test)', '.jobs.x."continue-on-error" = true', 'allow_failure: true', '.if = false' on a pipeline. */
const FAILURE_ALLOWED =
  /\bdel\s*\(|continue-on-error"?\s*=\s*true|allow_failure"?\s*=\s*true|\.if\s*=\s*(false|"false")|\bwhen"?\s*=\s*"?never/;
const yq = when(
  'test-tampering',
  (w) =>
    w.some((t) => /^-[a-zA-Z]*i|^--inplace/.test(t)) &&
    w.some((t) => isCiConfig(t)) &&
    FAILURE_ALLOWED.test(w.filter((t) => !t.startsWith('-') && !isCiConfig(t)).join(' ')),
  'pipeline checks removed or allowed to fail',
);

/** `npm pkg set scripts.test=true`, `npm pkg delete scripts.test`: the project's checks replaced by a no-op or removed. */
export const packageScriptsNoop: PackageCheck = ({ path }, cmd, _io, ctx) => {
  if (path[0] === 'pkg' && path[1] === 'delete' && path.some((w) => /^scripts\.(test|lint|check|verify|ci)$/.test(w)))
    add(ctx, show(cmd), 'a check script removed');
  if (path[0] !== 'pkg' || path[1] !== 'set') return;
  for (const w of path.slice(2)) {
    const m = /^scripts\.(test|lint|check|verify|ci|typecheck|coverage|pretest|precommit)[\w:-]*=(.*)$/.exec(w);
    if (m && NOOP.test(m[2]!)) add(ctx, show(cmd), `scripts.${m[1]} made a no-op`);
  }
};

/** rm / git rm of pipeline files and directories, code owners, the whole test directory. */
export function pipelineOrTestsRemoved(targets: Word[], recursive: boolean, detail: string, ctx: CheckContext): void {
  const ops = targets.map((a) => a.text);
  // The whole pipeline: its directory or a single-file definition (one old workflow among several is ordinary).
  if (ops.some((o) => CI_DIR.test(o) || (isCiConfig(o) && !/\.github\/workflows\//.test(o))))
    add(ctx, detail, 'removes the pipeline');
  if (ops.some((o) => CODEOWNERS.test(o))) add(ctx, detail, 'removes the code owners');
  if (ops.some((o) => TEST_DIR.test(o)) && recursive) add(ctx, detail, 'removes the tests');
}

/**
 * A line that pushes to the main branch with its hooks or CI skipped: `git push --no-verify origin main`, `-o
 * ci.skip`, `HUSKY=0`/`SKIP=...` before the push, or a commit with `[skip ci]` or `--no-verify` pushed in the same line.
 */
export function lineSkipsChecks(line: string, ctx: CheckContext): void {
  const push = /\bgit\b[^;&|\n]*\spush\b[^;&|\n]*\s(\+?HEAD:|\+)?(refs\/heads\/)?(main|master|trunk)(\s|$|;|&|\|)/.exec(
    line,
  );
  if (!push) return;
  if (
    /--no-verify\b|\[(skip ci|ci skip|no ci|skip actions|actions skip)\]|\s-o\s*ci\.skip|--push-option[= ]ci\.skip|(^|[\s;&|])(HUSKY=0|HUSKY_SKIP_HOOKS=1|SKIP=\S+|LEFTHOOK=0|PRE_COMMIT_ALLOW_NO_CONFIG=1)\s|\bgit\b[^;&|\n]*\scommit\b[^;&|\n]*\s-[a-zA-Z]*n\b/.test(
      line,
    )
  )
    add(ctx, shortened(line), 'skips hooks or CI on a push to the main branch');
}

/** jq '.scripts.test = "echo ok"' package.json > p.json && mv p.json package.json. */
export function lineScriptsNoop(line: string, ctx: CheckContext): void {
  const m = /\.scripts\.(test|lint|check|verify|ci)\s*=\s*"([^"]*)"/.exec(line);
  if (m && NOOP.test(m[2]!) && /package\.json/.test(line) && /[>]|sponge|\s-i\b/.test(line))
    add(ctx, shortened(line), `scripts.${m[1]} made a no-op`);
}

judges(import.meta.url, { yq });
