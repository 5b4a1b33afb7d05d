// The metrics endpoint's address: what the Temporal runtime can bind, and one clear line for anything else.
import { describe, expect, it } from 'vitest';
import { parseMetricsAddress } from './metrics-address.js';

describe('parseMetricsAddress', () => {
  it.each([
    ['127.0.0.1:9464', '127.0.0.1:9464'],
    ['0.0.0.0:0', '0.0.0.0:0'],
    ['localhost:9464', '127.0.0.1:9464'],
    ['[::1]:9464', '[::1]:9464'],
    [' 127.0.0.1:80 ', '127.0.0.1:80'],
  ])('%s is %s', (value, address) => {
    expect(parseMetricsAddress(value)).toEqual({ address });
  });

  it.each([
    ['9464', /is not HOST:PORT/],
    ['127.0.0.1', /is not HOST:PORT/],
    ['127.0.0.1:99999', /above 65535/],
    ['example.com:9464', /not an IP address/],
    ['::1:9464', /is not HOST:PORT/],
    ['[127.0.0.1]:9464', /not an IP address/],
    ['127.0.0.1:-1', /is not HOST:PORT/],
    ['', /is not HOST:PORT/],
  ])('%s is refused', (value, why) => {
    const parsed = parseMetricsAddress(value);
    expect('problem' in parsed && parsed.problem).toMatch(why);
  });
});
