// Publishing: a package, an image or a chart sent to a registry where others take it from (npm publish, twine
// upload, docker push, mvn deploy, ...). Public at once and hard to take back, and a supply-chain attack's goal:
// it asks. A dry run, and an image pushed to a registry on this machine, stay ordinary. Pure.
import { parseFlags } from '../engine/argv.js';
import type { Argv } from '../engine/argv.js';
import { optionValues } from '../engine/long-options.js';
import { show, when, type Check } from './types.js';
import { judges } from './registry.js';
import { keyTable } from '../engine/names.js';
import type { PackageCheck } from '../programs/packages/call.js';
import type { ContainerCheck } from '../programs/containers/call.js';

const DRY_RUN = /^(--dry-run|--dryrun|-n|--dry_run|--skip-publish)$/;

const dryRun = (cmd: Argv): boolean => cmd.args.some((a) => DRY_RUN.test(a.text) || a.text.startsWith('--dry-run='));

/** The subcommand path (operands), flags and their values left out. */
const words = (cmd: Argv, valueFlags: readonly string[] = []): string[] =>
  parseFlags(cmd.args, valueFlags).operands.map((o) => o.text);

/** `<tool> <verb>` publishes when its first operand is one of `verbs` (`vsce publish`, `helm push`). */
const verbCheck = (verbs: RegExp): Check =>
  when('package-publish', (_w, cmd) => verbs.test(words(cmd)[0] ?? '') && !dryRun(cmd));

/** A registry on this machine (a local test registry) is not publishing to anyone. */
const LOCAL_REGISTRY = /^(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)(:\d+)?\//;

/** `docker push IMAGE`, `docker buildx build --push` (or `-o type=registry`): an image sent to a registry. */
export const imagePush: ContainerCheck = ({ group, verb, rest }, cmd, _io, ctx) => {
  // docker buildx build --push, docker build --push, buildx bake --push: built and pushed in one step.
  const args = cmd.args.map((a) => a.text);
  const tag = optionValues(cmd.args, ['-t', '--tag'], false)[0]?.text;
  // Where `-o`/`--output` sends the build: `type=registry`, or `push=true` on an image.
  const pushes = optionValues(cmd.args, ['-o', '--output'], false).some((o) =>
    /(^|,)(type=registry|push=true)\b/.test(o.text),
  );
  if (
    (pushes || args.some((a) => a === '--push' || a === '--push=true')) &&
    !(tag !== undefined && LOCAL_REGISTRY.test(tag))
  )
    return ctx.add('package-publish', show(cmd));
  // `docker compose push`, `docker manifest push`: the project's images, a manifest list.
  if (verb !== 'push' || (group !== undefined && !/^(images?|compose|manifest)$/.test(group))) return;
  const image = parseFlags(rest, ['--platform']).operands[0]?.text;
  if (image !== undefined && LOCAL_REGISTRY.test(image)) return;
  ctx.add('package-publish', show(cmd));
};

/** The verb each package manager publishes with (yarn 2+ also as `yarn npm publish`). */
const PUBLISH_VERB = keyTable({
  'npm pnpm yarn bun cargo poetry flit hatch uv pdm': 'publish',
  twine: 'upload',
  gem: 'push',
});

/** `npm --prefix x publish`, `twine upload dist/*`, `gem push x.gem`: a package sent to its registry. */
export const packagePublish: PackageCheck = ({ path }, cmd, _io, ctx) => {
  const verb = path[0] === 'npm' ? path[1] : path[0];
  // A registry on this machine (verdaccio on :4873) publishes to no one else.
  const registry = optionValues(cmd.args, ['--registry'], false)[0]?.text.replace(/^https?:\/\//, '');
  if (registry !== undefined && LOCAL_REGISTRY.test(`${registry}/`)) return;
  if (verb !== undefined && verb === PUBLISH_VERB[cmd.name ?? ''] && !dryRun(cmd))
    ctx.add('package-publish', show(cmd));
};

/** Release tools that publish whatever the project releases (npm, GitHub releases, stores) unless dry or a snapshot. */
const releaseTool: Check = (cmd, _io, ctx) => {
  const args = cmd.args.map((a) => a.text);
  if (dryRun(cmd) || args.some((a) => /^(-d|--snapshot|--skip=publish|--skip-publish|--no-publish)$/.test(a))) return;
  if (cmd.name === 'goreleaser' && args.find((a) => !a.startsWith('-')) !== 'release') return;
  ctx.add('package-publish', show(cmd));
};

/** fastlane LANE: lanes named for shipping (release, deploy, beta, appstore, upload...) send a build to a store. */
const SHIPPING_LANE =
  /(release|deploy|beta|appstore|app_store|playstore|play_store|upload|submit|publish|production|testflight|supply|deliver|pilot)/i;

judges(import.meta.url, {
  'vsce ovsx lerna changeset': verbCheck(/^publish$/),
  helm: verbCheck(/^push$/),
  // Gradle's publish tasks (`publish`, `publishToSonatype`, `publishPlugins`), not publishToMavenLocal.
  'gradle gradlew': when('package-publish', (_w, cmd) =>
    words(cmd).some((t) => /^(:?[\w-]+:)*publish\w*$/.test(t) && !/MavenLocal$/.test(t)),
  ),
  'mvn mvnw': when('package-publish', (_w, cmd) =>
    words(cmd, ['-f', '-s', '-P', '-pl', '-T']).some((p) => /^(deploy|deploy:deploy(-file)?|release:perform)$/.test(p)),
  ),
  'dotnet nuget': when('package-publish', (_w, cmd) => {
    const w = words(cmd, ['--api-key', '-k', '--source', '-s']);
    return (w[0] === 'nuget' && w[1] === 'push') || w[0] === 'push';
  }),
  'semantic-release release-it goreleaser np': releaseTool,
  fastlane: when('package-publish', (_w, cmd) =>
    SHIPPING_LANE.test(words(cmd).filter((w) => !/^(ios|android|mac)$/.test(w))[0] ?? ''),
  ),
});
