// Binds a command to the bytes the approval gate judged: the files the verdict was reached on (scripts run by path,
// modules they import) are compared with the digests the gate took, inside the environment, in the command's own
// shell just before it runs; a file changed since (a background process swapped it) and the command is refused.
// Pure string building. Worker-only.
import { shQuote } from './shell-scripts.js';

/** Exit status of a command refused because a judged file changed (the shell's "cannot execute"). */
export const CHANGED_EXIT = 126;

/** The digests of `reads` (key → digest, src/approval/assess.ts fileDigest) that a shell can compare: files only. */
export function comparableDigests(reads: Record<string, string> | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, d] of Object.entries(reads ?? {})) if (/^sha256:[0-9a-f]{64}$/.test(d) || d === 'missing') out[k] = d;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A key as the gate's reader names it (relative to where the command runs, or `~/...`), quoted for sh. */
const quotedPath = (key: string): string => (key.startsWith('~/') ? `"$HOME"/${shQuote(key.slice(2))}` : shQuote(key));

/**
 * What checks one file: it is still missing, or it is a regular file whose SHA-256 is the judged one. No tool to
 * take a digest (sha256sum, shasum, openssl) refuses too: nothing runs unverified.
 */
const CHECK = [
  '__tjudged() {',
  '  if [ "$2" = missing ]; then [ ! -e "$1" ] && [ ! -L "$1" ] && return 0',
  '  elif [ -f "$1" ]; then',
  '    if command -v sha256sum >/dev/null 2>&1; then __th=$(sha256sum < "$1")',
  '    elif command -v shasum >/dev/null 2>&1; then __th=$(shasum -a 256 < "$1")',
  '    else __th=$(openssl dgst -sha256 -r < "$1" 2>/dev/null); fi',
  '    [ "sha256:${__th%% *}" = "$2" ] && return 0',
  '  fi',
  `  printf 'tether: %s changed after the approval check read it, so the command was not run (what runs must be what was judged); run it again to have it judged on what is there now.\\n' "$1" >&2`,
  `  exit ${CHANGED_EXIT}`,
  '}',
].join('\n');

/**
 * `command` preceded by the check of each judged file (`digests`: key → `sha256:HEX` or `missing`). The command runs
 * in a shell of its own (shell-scripts.ts, shell-session-script.ts), so the refusal's `exit` ends only it. Lines
 * before the command leave its parsing unchanged.
 */
export function boundToJudged(command: string, digests: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(digests ?? {});
  if (entries.length === 0) return command;
  const checks = entries.map(([k, d]) => `__tjudged ${quotedPath(k)} ${shQuote(d)}`);
  return [CHECK, ...checks, 'unset -f __tjudged; unset __th', command].join('\n');
}
