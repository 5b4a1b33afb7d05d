// A Logger that keeps what was logged, so tests can assert on warnings.
import type { Logger } from '../../src/logging/logger.js';

export interface LogLine {
  level: 'warn' | 'info' | 'error' | 'debug';
  obj: object;
  msg: string;
}

export function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg: string) => {
    lines.push({ level, obj, msg });
  };
  return { lines, warn: at('warn'), info: at('info'), error: at('error'), debug: at('debug') };
}
