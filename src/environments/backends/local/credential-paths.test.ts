import { describe, expect, it } from 'vitest';
import { movedCredentialPaths } from './credential-paths.js';

describe('credential paths the worker environment points tools to', () => {
  it('hides files and directories named by the variables, lists split, XDG bases mapped', () => {
    const paths = movedCredentialPaths({
      KUBECONFIG: '/srv/k/a.yaml:/srv/k/b.yaml',
      DOCKER_CONFIG: '/srv/docker',
      CARGO_HOME: '/opt/cargo',
      XDG_CONFIG_HOME: '/srv/xdg',
      KRB5CCNAME: 'FILE:/var/krb/cc_0',
    });
    expect(paths).toEqual(
      expect.arrayContaining([
        '/srv/k/a.yaml',
        '/srv/k/b.yaml',
        '/srv/docker/config.json',
        '/opt/cargo/credentials',
        '/srv/xdg/gh',
        '/srv/xdg/gcloud',
        '/var/krb/cc_0',
      ]),
    );
    expect(paths).not.toContain('/opt/cargo');
  });

  it('hides nothing for a relative path, /, or a top-level directory', () => {
    expect(
      movedCredentialPaths({ GH_CONFIG_DIR: '/', GNUPGHOME: '/etc', NETRC: 'rel/netrc', XDG_CONFIG_HOME: '/home' }),
    ).toEqual([]);
  });
});
