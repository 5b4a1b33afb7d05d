// What a task's network namespace reads as resolv.conf, for the machines' usual files.
import { describe, expect, it } from 'vitest';
import { namespaceResolvText } from './namespace-resolv.js';

describe('namespaceResolvText', () => {
  it("systemd-resolved's stub (Ubuntu): the forwarder instead, search and options kept", () => {
    const stub =
      '# This is /run/systemd/resolve/stub-resolv.conf\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n';
    expect(namespaceResolvText(stub)).toBe(
      '# This is /run/systemd/resolve/stub-resolv.conf\nnameserver 10.0.2.3\noptions edns0 trust-ad\nsearch lan\n',
    );
  });

  it('a loopback server beside a real one: the forwarder once, where the first loopback one was, the real one kept', () => {
    expect(namespaceResolvText('nameserver 127.0.0.1\nnameserver 192.0.2.53\nnameserver ::1\n')).toBe(
      'nameserver 10.0.2.3\nnameserver 192.0.2.53\n',
    );
  });

  it('no loopback nameserver (or none at all): the machine’s file serves as it is', () => {
    expect(namespaceResolvText('nameserver 10.255.255.53\n')).toBeUndefined();
    expect(namespaceResolvText('search example.org\n')).toBeUndefined();
    expect(namespaceResolvText('# nameserver 127.0.0.53\nnameserver 192.0.2.1\n')).toBeUndefined();
  });
});
