import { describe, expect, it } from 'vitest';
import { refusedAddress } from './addresses.js';
import { embeddedIPv4 } from './embedded-ipv4.js';

describe('embeddedIPv4', () => {
  it.each([
    ['64:ff9b::7f00:1', ['127.0.0.1']],
    ['64:ff9b::169.254.169.254', ['169.254.169.254']],
    ['2002:c0a8:0101:0:0:0:0:1', ['192.168.1.1']],
    // Teredo: the server in bits 32-63, the client inverted in the last 32 (0x80fffffe ^ 0xffffffff = 127.0.0.1).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', ['65.54.227.120', '127.0.0.1']],
    ['2606:4700::1111', []],
    ['64:ff9b:0:1::7f00:1', []],
  ])('%s carries %j', (address, inner) => {
    expect(embeddedIPv4(address)).toEqual(inner);
  });
});

describe('the one reserved-address table judges a translated address as the IPv4 host it carries', () => {
  it.each([
    ['64:ff9b::7f00:1', 'carries 127.0.0.1 (is a loopback (this machine) address)'],
    ['64:ff9b::169.254.169.254', 'carries 169.254.169.254 (is a link-local (cloud metadata lives here) address)'],
    ['2002:7f00:1::1', 'carries 127.0.0.1 (is a loopback (this machine) address)'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'carries 127.0.0.1 (is a loopback (this machine) address)'],
  ])('refuses %s', (address, why) => {
    expect(refusedAddress(address)).toBe(`${address} ${why}`);
  });

  it.each(['64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'])(
    'does not refuse %s (a public IPv4 host behind the translator) for its form',
    (address) => {
      expect(refusedAddress(address)).toBeUndefined();
    },
  );
});
