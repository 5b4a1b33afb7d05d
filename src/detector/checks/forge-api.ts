// How a command calls a code forge's API: `gh api`/`glab api` with the method it sends (fields without -X make a
// POST), and the method an HTTP client (curl, wget, httpie, xh) sends. The one reader for every check that judges a
// forge write (forge.ts: actions in the user's name; repo-api.ts: what protects a repository). Pure.
import type { Argv } from '../engine/argv.js';

/** Options of `gh api`/`glab api` that take a value (the value is not the path). */
const VALUED = /^(-H|--header|-q|--jq|-t|--template|--hostname|-p|--preview|--cache)$/;

/** `gh api -X POST repos/...`, `glab api --method PUT projects/...`: a writing call's method and path, else undefined. */
export function forgeApiWrite(args: readonly string[]): { method: string; path: string } | undefined {
  const at = args.indexOf('api');
  if (at < 0 || args.slice(0, at).some((t) => !t.startsWith('-'))) return undefined;
  let method: string | undefined;
  let path: string | undefined;
  let fields = false;
  for (let i = at + 1; i < args.length; i += 1) {
    const t = args[i]!;
    if (t === '-X' || t === '--method') method = args[(i += 1)];
    else if (/^(-X|--method=)./.test(t)) method = t.replace(/^(-X|--method=)/, '');
    else if (/^(-f|-F|--field|--raw-field|--input)$/.test(t)) {
      fields = true;
      i += 1;
    } else if (VALUED.test(t)) i += 1;
    else if (!t.startsWith('-') && path === undefined) path = t;
  }
  const m = (method ?? (fields ? 'POST' : 'GET')).toUpperCase();
  return path !== undefined && m !== 'GET' && m !== 'HEAD' ? { method: m, path } : undefined;
}

const HTTPIE = /^(http|https|xh|xhs)$/;

/** The HTTP method a client command sends: -X/--request/--method, httpie's first word, or a POST a body implies. */
export function httpMethod(cmd: Argv): string | undefined {
  const w = cmd.args.map((a) => a.text);
  const x = w.findIndex((t) => t === '-X' || t === '--request' || t === '--method');
  const given =
    x >= 0
      ? w[x + 1]
      : w.find((t) => /^(-X|--request=|--method=)\w/.test(t))?.replace(/^(-X|--request=|--method=)/, '');
  if (given) return given.toUpperCase();
  if (HTTPIE.test(cmd.name ?? '') && /^(POST|PUT|PATCH|DELETE)$/i.test(w[0] ?? '')) return w[0]!.toUpperCase();
  if (w.some((t) => /^(-d|--data[\w-]*|-F|--form|--json)$/.test(t))) return 'POST';
  if (HTTPIE.test(cmd.name ?? '') && w.some((t) => /^[\w.-]+(=|:=)/.test(t))) return 'POST';
  return undefined;
}

/** Whether an HTTP method changes something (a forge API takes these as writes). */
export const writingMethod = (method: string | undefined): method is string =>
  method !== undefined && /^(POST|PUT|PATCH|DELETE)$/.test(method);
