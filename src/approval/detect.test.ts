import { beforeAll, describe, expect, it } from 'vitest';
import { detect } from './detect.js';
import { DANGEROUS, ORDINARY, TABLE_CWD } from '../../test/fixtures/detect-table.js';
import { loadBashParser, type ParseBash } from './parser.js';
import { RULES } from './rules.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});

describe('the verdict table', () => {
  it('has at least 150 dangerous and 100 ordinary commands, each once', () => {
    expect(DANGEROUS.length).toBeGreaterThanOrEqual(150);
    expect(ORDINARY.length).toBeGreaterThanOrEqual(100);
    const all = [...DANGEROUS.map((r) => r[0]), ...ORDINARY];
    expect(new Set(all).size).toBe(all.length);
  });

  it.each(DANGEROUS)('asks: %s', (command, tier, rule) => {
    const verdict = detect(parse, command, { cwd: TABLE_CWD });
    expect(verdict.dangerous).toBe(true);
    expect(verdict.tier).toBe(tier);
    expect(verdict.findings.map((f) => f.rule)).toContain(rule);
  });

  it.each(ORDINARY)('does not ask: %s', (command) => {
    const verdict = detect(parse, command, { cwd: TABLE_CWD });
    expect(verdict.findings).toEqual([]);
    expect(verdict.dangerous).toBe(false);
    expect(verdict.tier).toBeNull();
  });
});

describe('detect', () => {
  it('names every finding with a known rule and a description of what triggered it', () => {
    const verdict = detect(parse, 'sudo rm -rf / && git push -f', { cwd: TABLE_CWD });
    expect(verdict.findings.map((f) => f.rule)).toEqual(['delete-root', 'git-force-push']);
    for (const f of verdict.findings) {
      expect(RULES.get(f.rule)?.tier).toBe(f.tier);
      expect(f.description).toContain(RULES.get(f.rule)!.description);
    }
    expect(verdict.findings[0]!.description).toContain('rm -rf /');
  });

  it('stops at a nesting limit instead of recursing without end', () => {
    let command = 'rm -rf /srv/x';
    for (let i = 0; i < 12; i += 1) command = `sh -c ${JSON.stringify(command)}`;
    const verdict = detect(parse, command);
    expect(verdict.findings.map((f) => f.rule)).toContain('too-deep');
  });

  it('finds nothing in an empty command', () => {
    expect(detect(parse, '   ')).toEqual({ command: '   ', dangerous: false, tier: null, findings: [] });
  });
});
