// Which modules judge a program name: the map a newcomer reads (`npm run detector:who`), which must name real files
// and agree with the checks the walker runs.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modulesJudging } from './dispatch.js';
import { execChecks } from './exec.js';

const exec = execChecks(() => false);
const detectorDir = fileURLToPath(new URL('..', import.meta.url));

describe('modulesJudging', () => {
  it('names one module for an HTTP client: its family, which reads the command line once for every judgement', () => {
    for (const name of ['curl', 'wget', 'http', 'xh'])
      expect(modulesJudging(name, exec)).toEqual(['programs/http/checks.ts']);
  });

  it('names the family of a forge CLI and of git, each read once for every judgement', () => {
    expect(modulesJudging('gh', exec)).toContain('programs/forge/checks.ts');
    expect(modulesJudging('git', exec)).toEqual(['programs/git/checks.ts']);
  });

  it('names every table that judges a program several classes read (az: forge writes, messages, infrastructure)', () => {
    const modules = modulesJudging('az', exec);
    expect(modules).toEqual(expect.arrayContaining(['checks/forge.ts', 'checks/outbound.ts', 'checks/infra.ts']));
    expect(modules).not.toContain('checks/vcs.ts');
  });

  it('names the families matched by pattern (a shell, an interpreter) and the package managers in one place', () => {
    expect(modulesJudging('bash', exec)).toContain('checks/exec.ts (a shell or interpreter)');
    expect(modulesJudging('npm', exec)).toEqual(['programs/packages/checks.ts']);
    expect(modulesJudging('brew', exec)).toEqual(['programs/packages/checks.ts']);
    expect(modulesJudging('ansible', exec)).toContain('checks/resource.ts (remote runs)');
  });

  it('gives a name no table claims to the generic resource verbs, and a text tool to none', () => {
    expect(modulesJudging('acme-cloud', exec)).toEqual(['checks/resource.ts (generic resource verbs)']);
    expect(modulesJudging('ls', exec)).toEqual([]);
  });

  it('names only files that exist', () => {
    for (const name of ['curl', 'git', 'gh', 'kubectl', 'docker', 'ssh', 'python3', 'systemctl', 'pwsh', 'make'])
      for (const m of modulesJudging(name, exec))
        expect(existsSync(`${detectorDir}${m.replace(/ \(.*$/, '')}`), m).toBe(true);
  });
});
