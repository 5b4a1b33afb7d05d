// What the worker's network tools may do under each terminal setting: one row per case.
import { platform } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { toolNetwork, toolNetworkWarnings } from './network-mode.js';

const terminal = (t: Record<string, unknown>) => parseConfig({ terminal: t }).terminal;

describe.skipIf(platform() !== 'linux')('toolNetwork', () => {
  it.each([
    ['the default (local, sandbox on, network: proxy)', {}, undefined, 'gate'],
    ['network: true', { local: { sandbox: { network: true } } }, undefined, 'gate'],
    ['network: direct', { local: { sandbox: { network: 'direct' } } }, undefined, 'open'],
    ['network: host', { local: { sandbox: { network: 'host' } } }, undefined, 'open'],
    ['network: false', { local: { sandbox: { network: false } } }, undefined, 'none'],
    ['sandbox off', { local: { sandbox: 'off' } }, undefined, 'gate'],
    [
      'sandbox off, network: false written too',
      { local: { sandbox: { enabled: false, network: false } } },
      undefined,
      'gate',
    ],
    ['another backend', { backend: 'docker' }, undefined, 'gate'],
    ['a run on docker while local has no network', { local: { sandbox: { network: false } } }, 'docker', 'gate'],
    [
      'a run on local while the default is docker',
      { backend: 'docker', local: { sandbox: { network: false } } },
      'local',
      'none',
    ],
  ])('%s', (_what, t, backend, kind) => {
    expect(toolNetwork(backend, terminal(t)).kind).toBe(kind);
  });

  it('says which setting decided', () => {
    expect(toolNetwork(undefined, terminal({ local: { sandbox: { network: 'direct' } } }))).toMatchObject({
      by: expect.stringMatching(/^terminal\.local\.sandbox\.network: direct/) as unknown,
    });
    expect(toolNetwork(undefined, terminal({ local: { sandbox: { network: false } } }))).toMatchObject({
      why: expect.stringMatching(/^terminal\.local\.sandbox\.network is false/) as unknown,
    });
  });
});

describe('toolNetworkWarnings', () => {
  it('names the allow_private settings that are no longer read, and nothing else', () => {
    expect(toolNetworkWarnings(parseConfig({}))).toEqual([]);
    const warned = toolNetworkWarnings(parseConfig({ web: { allow_private: true }, browser: { allow_private: true } }));
    expect(warned).toHaveLength(2);
    expect(warned[0]).toMatch(/^web\.allow_private is no longer read: .*terminal\.local\.sandbox\.egress/);
    expect(warned[1]).toMatch(/^browser\.allow_private is no longer read/);
  });
});
