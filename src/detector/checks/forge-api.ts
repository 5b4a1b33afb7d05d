// How a command calls a code forge's API through its CLI: `gh api`/`glab api` with the method it sends (fields
// without -X make a POST). The one reader for every check that judges a forge write (forge.ts: actions in the user's
// name; repo-api.ts: what protects a repository); HTTP clients are read by programs/http/request.ts. Pure.

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
