// How an HTTP client's command line reads: curl, wget, and httpie and xh (`http POST url k=v`). The one option parser
// every check of an HTTP request reads (http/checks.ts lists them): the method sent, the URLs, what the body and
// uploads carry, where the response is written, the socket spoken over. Pure.
import type { Argv } from '../../engine/argv.js';
import type { CheckContext, Io } from '../../checks/types.js';
import { resolveLong } from '../../engine/long-options.js';
import { names } from '../../engine/names.js';
import type { Word } from '../../engine/words.js';

/** The programs this parser reads. */
export const HTTP_CLIENTS = names('curl wget http https xh xhs');

/** httpie and xh: `[METHOD] URL [ITEM...]`, where items are headers (`K:V`), fields (`k=v`, `k:=json`), files (`k@f`). */
const HTTPIE = new Set(names('http https xh xhs'));

/** curl's and wget's options whose value is a request body, a form or an upload. */
const BODY = new Set(
  names(`
  -d --data --data-binary --data-raw --data-ascii --data-urlencode --json -F --form --form-string -T --upload-file
  --post-file --body-file --post-data --body-data
`),
);

/** Short options that take a value, by client: the rest of a cluster (`-sSLo f`, `-XPOST`) or the next word. */
const SHORT_VALUED = { curl: 'dFTXHouAexbwKEmrYyzcCDtUQP', wget: 'OoPUetTwQiaBDlA', httpie: 'aAops' };

/** Long options that take a value (written `--opt VALUE` or `--opt=VALUE`). */
const LONG_VALUED = new Set(
  names(`
  --header --output --request --method --user --password --user-agent --referer --proxy --proxy-user --cookie
  --cookie-jar --max-time --connect-timeout --retry --retry-delay --retry-max-time --write-out --config --cert --key
  --cacert --capath --range --dump-header --output-dir --unix-socket --abstract-unix-socket --resolve --connect-to
  --url --limit-rate --interface --max-filesize --oauth2-bearer --aws-sigv4 --output-document --output-file
  --append-output --directory-prefix --tries --timeout --wait --input-file --load-cookies --save-cookies --level
  --accept --reject --domains --auth --auth-type --session --session-read-only --verify --cert-key --print --pretty
  --style --format-options --boundary --default-scheme
`),
);

/** Flags (no value) read here: the response saved under the URL's own file name. */
const REMOTE_NAME = names('--remote-name --remote-name-all');

/** Flags that begin like an option with a value (`--head` and `--header`): named in full, they are themselves. */
const FLAGS = names(`
  --head --include --insecure --location --silent --show-error --fail --verbose --compressed --remote-header-name
  --create-dirs --continue --quiet --no-check-certificate --offline --download --follow --check-status --ignore-stdin
`);

/** Every long option read here, for abbreviations (the first match of an ambiguous prefix). */
const KNOWN_LONG = [...FLAGS, ...BODY, ...LONG_VALUED, ...REMOTE_NAME];

const LONG = { '-X': '--request', '-o': '--output', '-O': '--output-document', '-P': '--directory-prefix' } as const;

/** Options that name where the response is written, and the directory it is written into. */
const OUTPUT = { curl: ['--output'], wget: ['--output-document', '--output', '--output-file'], httpie: ['--output'] };
const OUTPUT_DIR = ['--output-dir', '--directory-prefix'];

/** One word of the command line, as the client reads it. */
export interface RequestWord {
  /** A body, form or upload (`option`'s value); a value of another option; or an operand (the URL, httpie's items). */
  kind: 'body' | 'value' | 'operand';
  /** The option it is the value of, as written without `=VALUE` (`-d`, `--data-binary`, `--post-file`). */
  option?: string;
  word: Word;
  /** Its index in the argument list. */
  at: number;
}

export interface HttpRequest {
  client: 'curl' | 'wget' | 'httpie';
  /** The method sent, upper case: written (-X, --request, --method, httpie's first word) or implied by a body. */
  method: string;
  /** The method changes something (anything but GET, HEAD and OPTIONS). */
  writes: boolean;
  /** Every word read by kind, in order. */
  words: RequestWord[];
  /** Where the response is written (not `-`, standard output). */
  outputs: string[];
  /** Directories the response is written into. */
  outputDirs: string[];
  /** The Unix socket the request is sent over (`--unix-socket PATH`). */
  socket?: string;
  /** Nothing is sent: httpie's `--offline` and xh's `--curl` print the request instead. */
  offline: boolean;
  /** The URLs requested, each with its scheme (`localhost:9200/_all` and httpie's `:9200/_all` read as http://). */
  urls: string[];
}

/** The option a word starts (with the value attached to it, if any), or undefined for a cluster of flags alone. */
function optionOf(t: string, client: HttpRequest['client']): { option: string; attached?: string } | undefined {
  if (t.startsWith('--')) {
    // curl, wget (getopt_long) and httpie (argparse) take any unambiguous prefix of a long option (`--data-bin`).
    const eq = t.indexOf('=');
    const option = resolveLong(eq < 0 ? t : t.slice(0, eq), KNOWN_LONG) ?? (eq < 0 ? t : t.slice(0, eq));
    return eq < 0 ? { option } : { option, attached: t.slice(eq + 1) };
  }
  for (let k = 1; k < t.length; k += 1)
    if (SHORT_VALUED[client].includes(t[k]!))
      return { option: `-${t[k]}`, ...(k + 1 < t.length ? { attached: t.slice(k + 1) } : {}) };
  return undefined;
}

/** The flags of a short-option cluster before the first letter that takes a value (`-sSLO`, `-fsSLo FILE`). */
function clusterFlags(t: string): string {
  if (t.startsWith('--')) return '';
  const at = [...t.slice(1)].findIndex((c) => SHORT_VALUED.curl.includes(c));
  return at < 0 ? t.slice(1) : t.slice(1, at + 1);
}

/** The long name of a short option where the two mean the same to every client read here (`-X` is `--request`). */
function longName(option: string, client: HttpRequest['client']): string {
  if (client === 'wget' && option === '-o') return '--output-file';
  if (client !== 'wget' && (option === '-O' || option === '-P')) return option;
  return (LONG as Record<string, string>)[option] ?? option;
}

/** How an HTTP client command reads, or undefined for another program. */
export function httpRequest(cmd: Argv): HttpRequest | undefined {
  const name = cmd.name ?? '';
  if (!HTTP_CLIENTS.includes(name)) return undefined;
  const client = HTTPIE.has(name) ? 'httpie' : name === 'wget' ? 'wget' : 'curl';
  const words: RequestWord[] = [];
  const req: HttpRequest = {
    client,
    method: 'GET',
    writes: false,
    words,
    outputs: [],
    outputDirs: [],
    urls: [],
    offline: false,
  };
  let written: string | undefined;
  let remoteName = client === 'wget';
  const args = cmd.args;
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (!t.startsWith('-') || t === '-') {
      words.push({ kind: 'operand', word: args[i]!, at: i });
      continue;
    }
    const parsed = optionOf(t, client);
    if (REMOTE_NAME.includes(parsed?.option ?? '') || (client === 'curl' && clusterFlags(t).includes('O')))
      remoteName = true;
    if (!parsed) continue;
    const { attached } = parsed;
    const option = longName(parsed.option, client);
    const short = !parsed.option.startsWith('--');
    // httpie's --form and --json are flags (the items make the body).
    const body = BODY.has(option) && client !== 'httpie';
    if (!short && attached === undefined && !LONG_VALUED.has(option) && !body) continue;
    const at = attached === undefined ? (i += 1) : i;
    const word = attached === undefined ? args[at] : { ...args[i]!, text: attached };
    if (!word) continue;
    words.push({ kind: option === '--url' ? 'operand' : body ? 'body' : 'value', option, word, at });
    if (/^(--request|--method)$/.test(option)) written = word.text.toUpperCase();
    else if (option === '--unix-socket') req.socket = word.text;
    else if (option === '--output-document') {
      remoteName = false;
      if (word.text !== '-') req.outputs.push(word.text);
    } else if (OUTPUT[client].includes(option) && word.text !== '-') req.outputs.push(word.text);
    else if (OUTPUT_DIR.includes(option)) req.outputDirs.push(word.text);
  }
  const operands = words.filter((w) => w.kind === 'operand').map((w) => w.word.text);
  req.urls = operands.flatMap((o) => urlOf(o, client) ?? []);
  req.offline =
    client === 'httpie' && args.some((a) => a.text === '--offline' || (a.text === '--curl' && name !== 'http'));
  // Saved under the URL's own name (curl -O, wget without -O), in the output directory when one is given.
  if (remoteName)
    for (const url of req.urls) {
      const file = /^[a-z]+:\/\/[^/]+\/(?:[^?#]*\/)?([^/?#]+)/i.exec(url)?.[1];
      if (file) req.outputs.push(req.outputDirs[0] ? `${req.outputDirs[0].replace(/\/+$/, '')}/${file}` : file);
    }
  if (client === 'httpie') {
    if (/^[A-Z]+$/.test(operands[0] ?? '')) written = operands[0];
    // Fields (`k=v`, `k:=json`) and files (`k@f`, `@f`) make a body; `k==v` is a query parameter.
    else if (operands.slice(1).some((o) => /^[^:=@]*(:=|=(?!=)|@)/.test(o))) written = 'POST';
  } else if (written === undefined && words.some((w) => w.kind === 'body'))
    written = words.some((w) => w.option === '-T' || w.option === '--upload-file') ? 'PUT' : 'POST';
  req.method = written ?? 'GET';
  req.writes = !/^(GET|HEAD|OPTIONS)$/.test(req.method);
  return req;
}

/**
 * An operand as the URL the client requests, with its scheme: `https://x/y`, `example.org/y`, `localhost:9200/_all`,
 * and httpie's `:9200/_all` (localhost); undefined for other words (httpie's items, a method).
 */
function urlOf(word: string, client: HttpRequest['client']): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return word;
  if (client === 'httpie' && /^:\d*(\/|$)/.test(word)) return `http://localhost${word}`;
  if (/^(localhost|[\w-]+(\.[\w-]+)*\.[a-z]{2,}|\d{1,3}(\.\d{1,3}){3}|\[[\da-f:]+\])(:\d+)?(\/|$)/i.test(word))
    return client === 'httpie' && /=|:=|@/.test(word) ? undefined : `http://${word}`;
  return undefined;
}

/** A judgement of one request (what it writes, sends, deletes...), kept with the knowledge of its threat class. */
export type RequestCheck = (req: HttpRequest, cmd: Argv, io: Io, ctx: CheckContext) => void;
