// Worker Versioning settings: off by default, flags over environment, one line per bad setting.
import { describe, expect, it } from 'vitest';
import { deploymentOptions, versioningSettings } from './versioning.js';

describe('versioningSettings', () => {
  it('is off without a build id: the worker names its code in a version it does not join', () => {
    expect(versioningSettings('tether', {})).toBeUndefined();
    expect(deploymentOptions(undefined, { taskQueue: 'my.queue', buildId: 'tether-0123456789ab' })).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'my-queue', buildId: 'tether-0123456789ab' },
        useWorkerVersioning: false,
      },
    });
  });

  it('defaults: deployment named after the task queue, AUTO_UPGRADE', () => {
    expect(versioningSettings('my.queue', { TETHER_BUILD_ID: '1.2.3' })).toEqual({
      deploymentName: 'my-queue',
      buildId: '1.2.3',
      behavior: 'AUTO_UPGRADE',
    });
  });

  it('flags override the environment', () => {
    const v = versioningSettings(
      'tether',
      { TETHER_BUILD_ID: 'a', TETHER_DEPLOYMENT_NAME: 'x', TETHER_VERSIONING: 'auto-upgrade' },
      { buildId: 'b', deployment: 'y', versioning: 'pinned' },
    );
    expect(v).toEqual({ deploymentName: 'y', buildId: 'b', behavior: 'PINNED' });
    const unversioned = { taskQueue: 'tether', buildId: 'tether-0123456789ab' };
    expect(deploymentOptions(v, unversioned)).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'y', buildId: 'b' },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
    // The workers of activities only (the worker's own queue, model calls) name the version without joining it.
    expect(deploymentOptions(v, unversioned, false)).toEqual({
      workerDeploymentOptions: { version: { deploymentName: 'y', buildId: 'b' }, useWorkerVersioning: false },
    });
  });

  it.each([
    [{ TETHER_VERSIONING: 'pinned' }, /needs a build id/],
    [{ TETHER_DEPLOYMENT_NAME: 'x' }, /needs a build id/],
    [{ TETHER_BUILD_ID: 'a', TETHER_VERSIONING: 'sticky' }, /^TETHER_VERSIONING=sticky: use auto-upgrade or pinned$/],
    [{ TETHER_BUILD_ID: '' }, /^TETHER_BUILD_ID=: give a non-empty name/],
    [{ TETHER_BUILD_ID: 'a b' }, /^TETHER_BUILD_ID=a b: give a non-empty name/],
    [{ TETHER_BUILD_ID: 'a', TETHER_DEPLOYMENT_NAME: 'x.y' }, /may not contain '\.'/],
  ])('bad settings %j: one line naming the setting', (env, message) => {
    expect(() => versioningSettings('tether', env)).toThrow(message);
  });
});
