// The test suite's Prometheus text parser: escapes, HELP/TYPE, infinities, and loud failure on what it cannot read.
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, samples, value } from './prometheus-text.js';

const body = `# HELP tether_tool_calls_total Tool calls
# TYPE tether_tool_calls_total counter
tether_tool_calls_total{tool="terminal",outcome="ok"} 2
tether_tool_calls_total{outcome="error",tool="read_file",} 1
# TYPE d histogram
d_bucket{le="0.5"} 1
d_bucket{le="+Inf"} 3 1700000000000
d_sum 4.25
weird{v="a \\"quoted\\" \\\\ back\\nslash, {brace}"} -1e3
nolabels NaN
`;

describe('parsePrometheusText', () => {
  const e = parsePrometheusText(body);

  it('reads samples, labels in any order, HELP and TYPE', () => {
    expect(value(e, 'tether_tool_calls_total', { tool: 'terminal', outcome: 'ok' })).toBe(2);
    expect(value(e, 'tether_tool_calls_total', { tool: 'read_file' })).toBe(1);
    expect(value(e, 'tether_tool_calls_total')).toBe(3);
    expect(e.types.get('tether_tool_calls_total')).toBe('counter');
    expect(e.types.get('d')).toBe('histogram');
    expect(e.help.get('tether_tool_calls_total')).toBe('Tool calls');
    expect(value(e, 'd_bucket', { le: '+Inf' })).toBe(3);
    expect(value(e, 'd_sum')).toBe(4.25);
    expect(value(e, 'absent')).toBeUndefined();
  });

  it('unescapes label values and reads special values', () => {
    expect(samples(e, 'weird')[0]).toEqual({
      name: 'weird',
      labels: { v: 'a "quoted" \\ back\nslash, {brace}' },
      value: -1000,
    });
    expect(value(e, 'nolabels')).toBeNaN();
  });

  it.each(['x{a="1" b="2"} 1', 'x{a=1} 1', 'x 1 2 3', 'x abc', '{a="1"} 1', 'x{a="1"'])('refuses %s', (line) => {
    expect(() => parsePrometheusText(line)).toThrow(/prometheus text/);
  });
});
