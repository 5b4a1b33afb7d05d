// What a wider approval ("session", "always") of one call covers: that call's canonical form, never a rule. The
// form is the tool, the command (same program, same arguments after quote removal: `git push -f 'R' x` is
// `git push -f R x`), its input, the directory it runs in and the digest of each file the gate read for it. Anything
// the canonical form cannot read for certain (expansions, redirects, globs, `~`) keeps its exact text, so two
// commands share a form only when bash would run the same words. Worker-only (bash grammar, node:crypto).
import type { AllowlistEntry, ApprovalFinding, ApprovalScope } from '../common/approval-types.js';
import { normalizePath } from '../common/paths.js';
import type { ParseBash, SyntaxNode } from '../detector/engine/parser.js';
import { isOpaqueRule } from '../common/rules.js';
import type { CallSubject } from '../detector/engine/subject.js';
import { contentDigest } from './protected-ledger.js';

type Form = (string | Form)[];

/** A bare word's text after backslash removal; undefined when bash could change it (glob, brace, tilde). */
function bareWord(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      i += 1;
      if (text[i] !== '\n') out += text[i];
      continue;
    }
    if ('*?[]{}~$`!'.includes(c)) return undefined;
    out += c;
  }
  return out;
}

/** The word bash passes, when it is fully literal; undefined otherwise. */
function literalWord(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'command_name':
      return node.namedChildCount === 1 ? literalWord(node.namedChildren[0]!) : undefined;
    case 'word':
      return bareWord(node.text);
    case 'number':
      return /^\d+$/.test(node.text) ? node.text : undefined;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      let out = '';
      for (const c of node.namedChildren) {
        if (c?.type !== 'string_content') return undefined;
        out += c.text.replace(/\\([\\"$`\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch));
      }
      return /[$`]/.test(node.text.replace(/\\[\\"$`]/g, '')) ? undefined : out;
    }
    case 'concatenation': {
      const parts = node.namedChildren.map((c) => (c ? literalWord(c) : undefined));
      return parts.includes(undefined) ? undefined : parts.join('');
    }
    default:
      return undefined;
  }
}

/** A redirect to or from a literal file or descriptor (`2>/dev/null`, `>> out.txt`, `2>&1`). */
function redirect(node: SyntaxNode): Form | undefined {
  const out: Form = ['redirect'];
  for (const c of node.children) {
    if (!c) return undefined;
    if (c.type === 'file_descriptor') {
      if (!/^\d+$/.test(c.text)) return undefined;
      out.push(`fd ${c.text}`);
    } else if (!c.isNamed) out.push(`op ${c.type}`);
    else {
      const target = literalWord(c);
      if (target === undefined) return undefined;
      out.push(`to ${target}`);
    }
  }
  return out;
}

/** The structure of a list of plain commands, or undefined when any part is more than literal words. */
function form(node: SyntaxNode): Form | undefined {
  switch (node.type) {
    case 'redirected_statement': {
      const parts = node.children.map((c) =>
        !c?.isNamed ? undefined : c.type === 'file_redirect' ? redirect(c) : form(c),
      );
      return parts.includes(undefined) ? undefined : ['redirected', ...(parts as Form[])];
    }
    case 'program':
    case 'list':
    case 'pipeline': {
      // Commands and the operators between them; a program's `;` says nothing a new element does not.
      const program = node.type === 'program';
      const out: Form = [program ? 'seq' : node.type];
      for (const c of node.children) {
        if (!c) return undefined;
        if (!c.isNamed) {
          if (program && c.type === ';') continue;
          if (!(program ? ['&'] : ['&&', '||', '|', '|&']).includes(c.type)) return undefined;
          out.push(c.type);
          continue;
        }
        const f = form(c);
        if (!f) return undefined;
        out.push(f);
      }
      return out;
    }
    case 'command': {
      const words = node.children.map((c) => (c?.isNamed ? literalWord(c) : undefined));
      return words.includes(undefined) ? undefined : ['cmd', ...(words as string[])];
    }
    default:
      return undefined;
  }
}

/**
 * The command's canonical form: the words bash would run, for a list of plain commands; otherwise the exact text
 * (a computed or redirected command is covered only as written).
 */
export function canonicalCommand(parse: ParseBash, text: string): string {
  const shaped = parse(text, (root) => (root && !root.hasError ? form(root) : undefined));
  return shaped ? JSON.stringify(shaped) : JSON.stringify(['exact', text]);
}

export interface ScopeInput {
  tool: string;
  subject: CallSubject;
  /** Where it runs (absolute). */
  cwd: string;
  findings: readonly ApprovalFinding[];
  /** Files read to judge it, with their digests. */
  reads: Readonly<Record<string, string>>;
}

/** What session and always would cover for this call, said in words and as a key. */
export function approvalScope(parse: ParseBash, input: ScopeInput): ApprovalScope {
  const { subject, tool, findings } = input;
  const cwd = normalizePath(input.cwd);
  const files = Object.keys(input.reads).sort();
  const key = contentDigest(
    JSON.stringify({
      v: 1,
      tool,
      cwd,
      command:
        subject.language === undefined && subject.findings === undefined
          ? canonicalCommand(parse, subject.text)
          : subject.text,
      language: subject.language ?? null,
      stdin: subject.stdin ?? null,
      inputOnly: subject.inputOnly === true,
      shown: subject.shown ?? null,
      reads: files.map((f) => [f, input.reads[f]]),
    }),
  );
  const what = tool === 'terminal' ? 'this exact command' : `this exact ${tool} call`;
  const extras = [
    ...(subject.stdin !== undefined ? ['with the same standard input'] : []),
    ...(files.length > 0
      ? [`while ${files.join(', ')} ${files.length === 1 ? 'stays' : 'stay'} exactly as shown`]
      : []),
  ];
  const covers = `${what} in ${cwd}${extras.length ? `, ${extras.join(' and ')}` : ''}`;
  const opaque = [...new Set(findings.map((f) => f.rule).filter(isOpaqueRule))];
  if (opaque.length > 0)
    return {
      key,
      covers,
      onceOnly: `[${opaque.join('], [')}] means tether could not read what will run, so only this one call can be approved`,
      alwaysNot: 'only this one call can be approved',
    };
  const alwaysNot =
    tool !== 'terminal' || subject.language !== undefined || subject.inputOnly
      ? `command_allowlist holds commands, not ${tool} calls`
      : subject.stdin !== undefined
        ? 'command_allowlist cannot hold the standard input this command is given'
        : files.length > 0
          ? `it runs ${files.join(', ')}, whose content an allowlist entry could not hold`
          : findings.some((f) => f.rule.startsWith('hook:'))
            ? 'a plugin asked for this approval'
            : undefined;
  if (alwaysNot) return { key, covers, alwaysNot };
  const always: AllowlistEntry = { command: subject.text.trim(), cwd };
  return { key, covers, always };
}
