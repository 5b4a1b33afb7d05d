// Publishing asks (a package, image or chart sent to a registry others take it from); dry runs, local registries
// and building stay ordinary; python -m MODULE is judged as the module's own command (src/detector/checks/publish.ts).
import { beforeAll, expect, it } from 'vitest';
import { detect } from '../engine/detect.js';
import { loadBashParser, type ParseBash } from '../engine/parser.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});

const verdict = (command: string) => detect(parse, command, { cwd: '/home/me/proj' });

it.each([
  'npm publish',
  'pnpm -r publish --access public',
  'yarn npm publish --tag next',
  'bun publish',
  'cargo publish -p core',
  'python3 -m twine upload dist/*',
  'uv publish --token $PYPI_TOKEN',
  'hatch publish',
  'gem push pkg/tool-2.0.0.gem',
  'docker push ghcr.io/acme/web:2.1',
  'podman image push quay.io/acme/worker',
  './gradlew :lib:publishToSonatype',
  'mvn -B clean deploy',
  'dotnet nuget push out/App.1.2.0.nupkg -k $KEY -s https://api.nuget.org/v3/index.json',
  'helm push chart-2.0.0.tgz oci://ghcr.io/acme/charts',
  'vsce publish minor',
  'cd pkg && npm publish',
])('asks: %s', (command) => {
  const v = verdict(command);
  expect(v.dangerous).toBe(true);
  expect(v.findings.map((f) => f.rule)).toContain('package-publish');
});

it.each([
  'npm publish --dry-run',
  'cargo publish --dry-run',
  'npm pack',
  'npm run publish:docs',
  'docker push localhost:5000/web:dev',
  'docker build -t web .',
  'gradle publishToMavenLocal',
  'mvn -B package',
  'python -m build',
  'python3 -m twine check dist/*',
  'python -m pytest -k publish',
  'python -m http.server 8000',
  'poetry build',
])('ordinary: %s', (command) => {
  expect(verdict(command).findings).toEqual([]);
});

it('python -m MODULE ARGS is judged as MODULE ARGS', () => {
  expect(verdict('python3 -m pip uninstall -y requests').findings).toEqual(
    verdict('pip uninstall -y requests').findings,
  );
  expect(verdict('python -m mytool.cli destroy-all --force').dangerous).toBe(true);
});
