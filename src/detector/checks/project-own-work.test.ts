// Ordinary work on the project's own things that used to ask (the everyday corpus's false alarms), and the dangerous
// neighbours that still must: the project's containers and images named as compose names them, a dev server killed
// by its entry point, and a `for` loop over known values (a glob of the project's directories, expanded as bash would)
// whose body is judged with each value. At the detector with files read as the gate reads them.
import { beforeAll, describe } from 'vitest';
import { judgedTable, type Asks, type Benign } from '../../../test/support/judge-on-disk.js';
import { loadBashParser } from '../engine/parser.js';

const CWD = '/work/proj';
beforeAll(async () => {
  await loadBashParser();
});

const pkg = (test: string): string => JSON.stringify({ name: 'p', scripts: { test } });
/** A monorepo whose packages' test scripts are ordinary. */
const PACKAGES = { 'packages/a/package.json': pkg('vitest run'), 'packages/b/package.json': pkg('node --test') };
/** The same with one package whose test script needs approval. */
const BAD_PACKAGE = { ...PACKAGES, 'packages/c/package.json': pkg('kubectl delete pod demo') };

const ASKS: Asks[] = [
  // Containers and images not named after the project, forced, with volumes, every one, or a computed list.
  ['docker rm -f web', {}, 'resource-delete', 'docker rm -f web'],
  ['nerdctl rm -f web', {}, 'resource-delete', 'nerdctl rm -f web'],
  ['docker rmi nginx:latest', {}, 'resource-delete', 'docker rmi nginx:latest'],
  ['docker rm -f -v proj-db-1', {}, 'resource-delete', 'docker rm -f -v proj-db-1'],
  ['docker rm -f $(docker ps -aq)', {}, 'resource-delete', 'docker rm -f'],
  ['docker image rm -f $(docker images -q)', {}, 'resource-delete', 'docker image rm'],
  ['docker rm -f projx-api-1', {}, 'resource-delete', 'projx-api-1'],
  // Every instance of a program, by name.
  ['pkill -f gunicorn', {}, 'mass-kill', 'pkill -f gunicorn'],
  ['pkill -f "npm run"', {}, 'mass-kill', 'pkill -f npm run'],
  // A loop's body is judged with each value: one package's test script asks.
  ['for d in packages/*/; do (cd "$d" && npm test); done', BAD_PACKAGE, 'kubectl-delete', 'kubectl delete pod demo'],
  [
    'for f in a.sh b.sh; do sh "$f"; done',
    { 'a.sh': 'echo a\n', 'b.sh': 'kubectl delete pod demo\n' },
    'kubectl-delete',
    'kubectl delete',
  ],
  ['for d in build /etc; do rm -rf "$d"; done', {}, 'delete-system-dir', 'rm -rf /etc'],
];

const BENIGN: Benign[] = [
  ['docker rm -f proj-api-dev', {}],
  ['docker image rm proj-api:dev-old', {}],
  ['docker rmi proj-worker:dev proj_api:old', {}],
  ['docker rm api-1', {}],
  ['pkill -f "uvicorn app.main:app"', {}],
  ['pkill -f "gunicorn proj.wsgi:application --reload"', {}],
  ['for d in packages/*/; do (cd "$d" && npm test); done', PACKAGES],
  ['for f in a.sh b.sh; do sh "$f"; done', { 'a.sh': 'echo a\n', 'b.sh': 'echo b\n' }],
  ['for i in 1 2 3; do echo "$i"; done', {}],
];

describe("the project's own containers, processes and packages", () => judgedTable(CWD, ASKS, BENIGN));
