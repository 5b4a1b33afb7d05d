// git configuration files as git reads them: `[section "sub"]` headers, `key = value` lines with quotes, escapes and
// `\` continuations, comments; keys as `section.sub.key` (section and key lower-cased). Pure.

export interface GitSetting {
  key: string;
  value: string;
}

function unquote(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const n = raw[(i += 1)]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}

/** The settings of a git config file, in order (a later one of the same key wins, `include.path` may repeat). */
export function parseGitConfig(text: string): GitSetting[] {
  const out: GitSetting[] = [];
  let section = '';
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  for (const raw of lines) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]\s"]+)(?:\s+"((?:\\.|[^"\\])*)")?\s*\](.*)$/.exec(line);
    if (header) {
      const [name, sub] = [header[1]!, header[2]];
      // [section.sub], the old spelling of [section "sub"], is lower-cased whole; a quoted subsection keeps its case.
      section = sub !== undefined ? `${name.toLowerCase()}.${sub.replace(/\\(.)/g, '$1')}` : name.toLowerCase();
      line = header[3]!.trim();
      if (line === '') continue;
    }
    const m = /^([A-Za-z][\w-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m || section === '') continue;
    out.push({ key: `${section}.${m[1]!.toLowerCase()}`, value: m[2] === undefined ? 'true' : unquote(m[2]) });
  }
  return out;
}

/** Keys whose value is a command line git runs (pagers, editors, drivers, helpers, aliases with `!`). */
export const GIT_COMMAND_KEY =
  /^(core\.(pager|sshcommand|editor|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|gpg(\..+)?\.program|pager\..+|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy)|web\.browser|man\..+\.cmd|browser\..+\.cmd|difftool\..+\.cmd|mergetool\..+\.cmd|submodule\..+\.update|sendemail\.(sendmailcmd|smtpserver|tocmd|cccmd|headercmd))$/i;
