// Small helpers for benchmarks: percentiles of a sample, a silent logger, a line naming the machine.
import { cpus } from 'node:os';
import type { Logger } from '../src/logging/logger.js';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summary(samples: number[]): { median: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

export const fmt = (n: number, digits = 2): string => n.toFixed(digits);

export const silent: Logger = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} };

export function machine(): string {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`;
}
