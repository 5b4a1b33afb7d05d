// A container CLI's command line read once for every judgement (call.ts, containers/checks.ts).
import { describe, expect, it } from 'vitest';
import { argvOf as cli } from '../../../../test/support/argv-line.js';
import { detectorRules } from '../../../../test/support/detector-rules.js';
import { containerCall } from './call.js';

const rules = detectorRules();

describe('containerCall', () => {
  it('skips global options with their values, and reads a management group and its verb', () => {
    expect(containerCall(cli('docker -H tcp://h:2375 container run --rm alpine'))).toMatchObject({
      group: 'container',
      verb: 'run',
    });
    expect(containerCall(cli('podman --url ssh://h kill -a'))).toMatchObject({ verb: 'kill' });
    expect(containerCall(cli('docker compose -f x.yml -p app exec web sh'))).toMatchObject({
      group: 'compose',
      verb: 'exec',
    });
    expect(containerCall(cli('docker-compose -f x.yml down -v'))).toMatchObject({ group: 'compose', verb: 'down' });
  });

  it('gives the words after the verb', () => {
    expect(containerCall(cli('docker exec -it web bash')).rest.map((w) => w.text)).toEqual(['-it', 'web', 'bash']);
  });
});

describe('a container command', () => {
  it.each([
    ['docker -H tcp://127.0.0.1:2375 container run --privileged alpine', 'container-escape'],
    ['docker --context prod run -v /:/host alpine', 'container-escape'],
    ['podman --url ssh://h run --pid=host alpine', 'container-escape'],
    ['ctr -n k8s.io run --privileged docker.io/library/alpine:latest x', 'container-escape'],
    ['podman --remote kill -a', 'mass-kill'],
    ['nerdctl -n k8s.io container stop --all', 'mass-kill'],
    ['docker compose -f x.yml exec web rm -rf ~', 'delete-home'],
    ['docker-compose -f x.yml exec web rm -rf ~', 'delete-home'],
    ['docker compose -p x down -v', 'docker-prune'],
    ['docker system prune -af', 'docker-prune'],
    ['docker --context prod push acme/app:1', 'package-publish'],
    ['docker buildx build --push -t acme/app .', 'package-publish'],
    ['docker run -v/:/host alpine', 'container-escape'],
    ['docker run -itv /:/host alpine', 'container-escape'],
    ['docker run -itv/:/host alpine', 'container-escape'],
    ['docker run -v=/:/host alpine', 'container-escape'],
    ["docker run --device-cgroup-rule='a *:* rwm' alpine", 'container-escape'],
    ['docker run --userns=host alpine', 'container-escape'],
    ['docker exec --privileged web sh', 'container-escape'],
    ['docker compose run --privileged web sh', 'container-escape'],
    ['docker compose push', 'package-publish'],
    ['docker buildx build -o type=registry -t acme/app .', 'package-publish'],
    ['docker buildx build --output type=image,push=true -t acme/app .', 'package-publish'],
    ['docker manifest push acme/app:latest', 'package-publish'],
  ])('%s: %s', (command, rule) => {
    expect(rules(command)).toContain(rule);
  });

  it.each([
    'docker run --rm -v $PWD:/src node:20 npm test',
    'docker compose -f dev.yml up -d',
    'docker compose down',
    'docker ps -a',
    'docker build -t app .',
    'docker image push localhost:5000/app',
    'podman stop web',
    'docker run -it -e A=1 -p8080:80 node:20',
    'docker compose run --rm web npm test',
    'docker buildx build -o type=docker -t app .',
    'docker buildx build -o ./out .',
  ])('%s stays ordinary', (command) => {
    expect(rules(command)).toEqual([]);
  });
});
