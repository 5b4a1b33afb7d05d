// Matches a command and its findings against command_allowlist: exact commands, rule ids or glob patterns. Pure.
import { RULES } from './rules.js';

interface AllowlistSubject {
  command: string;
  rules: string[];
}

/** A glob over the whole command: `*` any run of characters, `?` one character. */
function globMatches(pattern: string, text: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[\\s\\S]*')
      .replace(/\?/g, '[\\s\\S]')}$`,
  );
  return re.test(text);
}

/**
 * The entry that allows the command, or undefined. A rule id allows a command only when every finding's rule is
 * allowed (one entry each); hardline findings are never allowed here (the caller refuses them first).
 */
export function allowlistMatch(entries: readonly string[], subject: AllowlistSubject): string | undefined {
  const command = subject.command.trim();
  for (const e of entries)
    // `network:HOST:PORT` entries are hosts a person allowed (the egress proxy reads them), never commands.
    if (!RULES.has(e) && !e.startsWith('network:') && (e === command || (/[*?]/.test(e) && globMatches(e, command))))
      return e;
  if (subject.rules.length > 0 && subject.rules.every((r) => entries.includes(r))) return subject.rules.join(', ');
  return undefined;
}
