// Resource abuse: what exhausts this machine or another host at a scale no task needs. Stress tools run wide, long or
// large; huge JVM heaps; files of tens of gigabytes or endless streams from /dev/zero or /dev/urandom into a file or
// onto the network; floods (ping -f, hping3 --flood); load generators at a large scale against hosts not on this
// machine; huge replica or instance counts; loops that keep starting processes, burn a core, or hammer a host; and
// interpreter code that allocates tens of gigabytes or allocates or spawns without end. Small benchmarks, local load
// tests and bounded files stay ordinary. Pure.
import type { Argv } from '../engine/argv.js';
import type { SyntaxNode } from '../engine/parser.js';
import { shortened, show, valueAt, type CheckContext, type Io } from './types.js';
import { keyTable } from '../engine/names.js';

const GiB = 1024 ** 3;
/** A file or allocation this big is no task's scratch space. */
const HUGE_BYTES = 20 * GiB;
const HUGE_MEMORY = 8 * GiB;

/** `64g`, `500G`, `1T`, `4096M`, `90%` (undefined for a percentage), plain bytes. */
export function sizeOf(text: string, unit = 1): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([kKmMgGtTpP])?(i?[bB])?$/.exec(text.trim());
  if (!m) return undefined;
  const scale: Record<string, number> = { k: 1024, m: 1024 ** 2, g: GiB, t: 1024 ** 4, p: 1024 ** 5 };
  return Number(m[1]) * (m[2] ? scale[m[2].toLowerCase()]! : unit);
}

/** `10m`, `24h`, `3600`, `1d`: seconds (0 means no limit for stress tools). */
function seconds(text: string): number | undefined {
  const m = /^(\d+)\s*(s|m|h|d|y)?$/i.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * ({ s: 1, m: 60, h: 3600, d: 86400, y: 31536000 }[(m[2] ?? 's').toLowerCase()] ?? 1);
}

/** The first value of an option named by `names`: `--opt=V`, `--opt V`, or a number attached to a short one (`-n100`). */
const value = (cmd: Argv, names: RegExp): string | undefined => {
  const words = cmd.args.map((a) => a.text);
  for (const [i, t] of words.entries()) {
    const attached = /^(-[a-zA-Z])(\d.*)$/.exec(t);
    const v = valueAt(words, i, names) ?? (attached && names.test(attached[1]!) ? attached[2] : undefined);
    if (v !== undefined) return v;
  }
  return undefined;
};

const LOCAL = /^(https?:\/\/)?(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?|0\.0\.0\.0|host\.docker\.internal)([:/]|$)/i;
const INFINITE_DEVICE = /^\/dev\/(zero|u?random)$/;

/** The worker counts of stress and stress-ng (`--cpu 8`, `-m 4`, `--vm=0`: 0 starts one per CPU). */
const STRESS_WORKERS = /(?:^|\s)(?:--(?:cpu|vm|io|hdd|matrix|stream|fork|sock|all)|-[cmid])(?:=|\s+)(\d+)/g;

/** stress, stress-ng, memtester: wide (8+ workers or every CPU), large (4 GiB+ or half the memory) or long (10 min+ or no end). */
function stress(cmd: Argv): boolean {
  const words = cmd.args.map((a) => a.text);
  if (cmd.name === 'memtester') return (sizeOf(words.find((w) => !w.startsWith('-')) ?? '', 1024 ** 2) ?? 0) >= 4 * GiB;
  const workers = [...words.join(' ').matchAll(STRESS_WORKERS)].map((m) => Number(m[1]));
  if (workers.some((n) => n === 0 || n >= 8)) return true;
  const bytes = value(cmd, /^--(vm|hdd)-bytes$/);
  if (bytes && (/%$/.test(bytes) ? Number(bytes.slice(0, -1)) >= 50 : (sizeOf(bytes) ?? 0) >= 4 * GiB)) return true;
  const timeout = value(cmd, /^(-t|--timeout)$/);
  const s = timeout === undefined ? 0 : seconds(timeout);
  return s === undefined || s === 0 || s >= 600;
}

/** A load generator at a large scale (requests, connections, duration, rate) against a host not on this machine. */
function loadTest(cmd: Argv, large: LoadScale): boolean {
  const words = cmd.args.map((a) => a.text);
  const target = words.find((w) => /^(https?:\/\/|[\w-]+(\.[\w-]+)+(:\d+)?(\/|$))/.test(w));
  if (!target || LOCAL.test(target)) return false;
  const n = (re: RegExp): number => Number(value(cmd, re) ?? 0);
  const dur = (re: RegExp): number => seconds(value(cmd, re) ?? '0') ?? 0;
  return large(n, dur);
}

/** Each load generator's large scale, from its option values as numbers (`n`) and as durations in seconds (`dur`). */
type LoadScale = (n: (re: RegExp) => number, dur: (re: RegExp) => number) => boolean;
const LOAD_TESTS = keyTable<LoadScale>({
  ab: (n, dur) => n(/^-n$/) >= 100000 || n(/^-c$/) >= 500 || dur(/^-t$/) >= 3600,
  'wrk wrk2': (n, dur) =>
    n(/^(-c|--connections)$/) >= 500 || n(/^(-t|--threads)$/) >= 32 || dur(/^(-d|--duration)$/) >= 3600,
  hey: (n, dur) => n(/^-n$/) >= 100000 || n(/^-c$/) >= 500 || dur(/^-z$/) >= 3600,
  siege: (n, dur) => n(/^(-c|--concurrent)$/) >= 500 || dur(/^(-t|--time)$/) >= 3600,
  'iperf3 iperf': (n, dur) => dur(/^(-t|--time)$/) >= 3600 || n(/^(-P|--parallel)$/) >= 32,
});

/** A count of replicas, instances or nodes: an option's value (`--replicas 300`, `--scale web=300`) or `NAME=N`. */
const SCALE_COUNT =
  /(?:--replicas|--count|--desired-capacity|--new-capacity|--max-count|--min-count|--size|--num-nodes|--instance-count|--scale)[= ](?:\w+=)?(\d+)|\b\w+=(\d+)\b/;

/** Scaling to a count no task needs: replicas, instances, node counts. */
function scaleUp(cmd: Argv): boolean {
  const text = [cmd.name, ...cmd.args.map((a) => a.text)].join(' ');
  const m = SCALE_COUNT.exec(text);
  const count = Number(m?.[1] ?? m?.[2] ?? 0);
  return count >= 100 && /\b(scale|run-instances|resize|update|create|up|set-desired-capacity|autoscale)\b/.test(text);
}

/** Judges one command for resource abuse; `outputFile`: where its standard output is redirected. */
export function checkResourceAbuse(cmd: Argv, io: Io, ctx: CheckContext, outputFile?: string): void {
  const name = cmd.name;
  if (name === null) return;
  const words = cmd.args.map((a) => a.text);
  const add = (why: string): void => ctx.add('resource-abuse', `${show(cmd)} (${why})`);
  if (/^(stress|stress-ng|memtester)$/.test(name) && stress(cmd))
    add('a stress tool at a scale that starves the machine');
  else if (/^(cpuburn|burnP6|burnK7|burnMMX|mprime|prime95|stressapptest)$/.test(name))
    add('a tool built to load every core');
  if (/^(java|javaw|jshell|kotlin|scala|sbt|gradle|mvn)$/.test(name) || name === 'JAVA_OPTS')
    for (const w of words) {
      const heap = /^-Xm[sx](\d+[kmgtKMGT]?)$/.exec(w);
      if (heap && (sizeOf(heap[1]!) ?? 0) >= 32 * GiB) add(`a ${heap[1]} heap`);
    }
  if (name === 'fallocate' && (sizeOf(value(cmd, /^(-l|--length)$/) ?? '') ?? 0) >= HUGE_BYTES)
    add('a file of tens of gigabytes');
  if (name === 'dd') {
    const kv = Object.fromEntries(
      words.flatMap((w) => (/^\w+=/.test(w) ? [[w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]] : [])),
    );
    const bs = sizeOf(kv.bs ?? '512') ?? 512;
    const infinite = INFINITE_DEVICE.test(kv.if ?? '');
    const toFile = kv.of !== undefined && !/^\/dev\//.test(kv.of);
    if (toFile && infinite && kv.count === undefined) add('an endless stream into a file');
    else if (toFile && kv.count !== undefined && bs * Number(kv.count) >= HUGE_BYTES)
      add('a file of tens of gigabytes');
  }
  if (name === 'head' && outputFile !== undefined && (sizeOf(value(cmd, /^(-c|--bytes)$/) ?? '') ?? 0) >= HUGE_BYTES)
    add('a file of tens of gigabytes');
  // yes > file, cat /dev/urandom > file, pv /dev/zero > file: an endless stream fills the disk.
  const readsInfinite = words.some((w) => INFINITE_DEVICE.test(w)) || INFINITE_DEVICE.test(io.stdinFile?.text ?? '');
  const endless =
    (name === 'yes' && words.every((w) => !w.startsWith('-'))) ||
    (readsInfinite && /^(cat|pv|tee|base64|od|xxd|tr)$/.test(name));
  if (outputFile !== undefined && outputFile !== '/dev/null' && endless) add('an endless stream into a file');
  if (/^tail$/.test(name) && words.some((w) => /^-[a-zA-Z]*[fF]/.test(w)) && readsInfinite)
    add('reads an endless device forever');
  // Floods: ping -f, hping3 --flood / -i u1, an endless device sent over the network.
  if (/^ping6?$/.test(name) && words.some((w) => /^-[a-zA-Z]*f/.test(w))) add('a ping flood');
  if (name === 'hping3' && words.some((w) => /^(--flood|--faster|-i\s*u\d+|u1)$/.test(w))) add('a packet flood');
  if (/^(nc|ncat|netcat|socat|nping)$/.test(name) && readsInfinite) add('an endless stream sent to the network');
  const loadScale = LOAD_TESTS[name];
  if (loadScale && loadTest(cmd, loadScale)) add('a load test at a large scale against another host');
  if (/^(kubectl|oc|aws|az|gcloud|doctl|eksctl|docker|docker-compose|podman|nomad|hcloud)$/.test(name) && scaleUp(cmd))
    add('scales to a count of 100 or more');
}

/** Numbers written with `_` separators, exponents and `*`, `**`/`^` between them: the largest product in the text. */
export function largestProduct(code: string): number {
  let best = 0;
  const NUM = String.raw`\d[\d_]*(?:\.\d+)?(?:[eE]\d+)?`;
  for (const m of code.matchAll(new RegExp(String.raw`${NUM}(?:\s*(?:\*\*|\*|\^)\s*\(?\s*${NUM}\s*\)?)*`, 'g'))) {
    const tokens = m[0].replace(/[()\s]/g, '').split(/(\*\*|\*|\^)/);
    const nums = tokens.filter((_, i) => i % 2 === 0).map((t) => Number(t.replace(/_/g, '')));
    const ops = tokens.filter((_, i) => i % 2 === 1);
    // Powers first (right to left), then products.
    for (let i = ops.length - 1; i >= 0; i -= 1)
      if (ops[i] === '**' || ops[i] === '^') nums.splice(i, 2, nums[i]! ** nums[i + 1]!);
    const product = nums.reduce((a, b) => a * b, 1);
    if (Number.isFinite(product) && product > best) best = product;
  }
  return best;
}

const ALLOCATES =
  /bytearray\s*\(|bytes\s*\(|Buffer\.(alloc|allocUnsafe)\s*\(|new\s+(Array|ArrayBuffer|Uint8Array|Float64Array)\s*\(|\.repeat\s*\(|["'][^"'\n]{0,8}["']\s*\*|\*\s*["'][^"'\n]{0,8}["']|["']\s*x\s*\(?\d|np\.(zeros|ones|empty)\s*\(|torch\.(zeros|ones|empty)\s*\(|malloc\s*\(|\[\s*0\s*\]\s*\*/;
const ENDLESS =
  /\bwhile\s*\(?\s*(True|true|1)\s*\)?\s*[:{]?|\bfor\s*\(\s*;\s*;\s*\)|\bloop\s*\{|\bwhile\s*\(\s*!0\s*\)|\buntil\s+false\b|\bforever\b|\bsetInterval\s*\(/;
const GROWS_OR_SPAWNS =
  /\.(push|append|extend)\s*\(|Buffer\.alloc|bytearray|\bspawn\s*\(|\bfork\s*\(|\bexec\s*\(|Popen\s*\(|Thread\s*\(|Process\s*\(|Worker\s*\(|new\s+Array\s*\(\s*1e/;
/** A way out of a loop. */
const LEAVES_LOOP = /\b(break|return|exit|sys\.exit|process\.exit)\b/;

/** Interpreter code that allocates tens of gigabytes at once, or allocates or spawns in a loop that never ends. */
export function codeResourceAbuse(code: string, ctx: CheckContext, detail: string): void {
  if (ALLOCATES.test(code) && largestProduct(code) >= HUGE_MEMORY)
    ctx.add('resource-abuse', `${detail} (allocates tens of gigabytes)`);
  else if (ENDLESS.test(code) && GROWS_OR_SPAWNS.test(code) && !LEAVES_LOOP.test(code))
    ctx.add('resource-abuse', `${detail} (allocates or starts processes without end)`);
}

/** Commands a loop body runs that keep a core busy for nothing. */
const BURNS =
  /^(yes|:|true|cat\s+\/dev\/(zero|u?random)|sha\d*sum\s+\/dev\/zero|md5sum\s+\/dev\/zero|openssl\s+speed)\b/;
const SLEEPS = /(^|[\s;&|(])(sleep|wait|read|inotifywait|timeout)\b/;
const REQUEST = /(^|[\s;&|(])(curl|wget|http|https|xh|nc|ab)\s+/;

/** How many times a loop runs: unbounded (Infinity), a literal count, or unknown. */
function loopCount(node: SyntaxNode): number | undefined {
  if (node.type === 'while_statement') {
    const cond = node.childForFieldName('condition')?.text.trim().replace(/;$/, '') ?? '';
    const until = node.text.trimStart().startsWith('until');
    if (!until && /^(true|:|\[\s*1\s*\]|\(\(\s*1\s*\)\)|test\s+1)$/.test(cond)) return Infinity;
    if (until && /^false$/.test(cond)) return Infinity;
    return undefined;
  }
  if (node.type === 'c_style_for_statement') {
    if (/^for\s*\(\(\s*[^;]*;\s*;/.test(node.text)) return Infinity;
    const bound = /;\s*\w+\s*<=?\s*(\d+)\s*;/.exec(node.text);
    return bound ? Number(bound[1]) : undefined;
  }
  if (node.type === 'for_statement') {
    const values = node.childrenForFieldName('value').map((v) => v?.text ?? '');
    const seq = values.map((v) => /^\$\(\s*seq\s+(?:(\d+)\s+)?(?:\d+\s+)?(\d+)\s*\)$/.exec(v)).find((m) => m);
    if (seq) return Number(seq[2]) - Number(seq[1] ?? 1) + 1;
    const brace = values.map((v) => /^\{(\d+)\.\.(\d+)\}$/.exec(v)).find((m) => m);
    if (brace) return Math.abs(Number(brace[2]) - Number(brace[1])) + 1;
    return values.length;
  }
  return undefined;
}

/**
 * A loop that keeps starting background processes (`while true; do sleep 1000 & done`, a thousand `(cmd &)`), puts a
 * core-burner in the background once per CPU, spins doing nothing, or requests another host without a pause.
 */
export function loopResourceAbuse(node: SyntaxNode, ctx: CheckContext): void {
  const body = node.childForFieldName('body');
  if (!body) return;
  const text = body.text.replace(/^do\b|\bdone$/g, '');
  const count = loopCount(node);
  const backgrounds = /(^|[^&>])&(\s|;|\)|$)(?!&)/.test(text);
  const detail = shortened(node.text);
  const commands = text
    .split(/[;&\n|]+/)
    .map((c) => c.trim().replace(/^\(+|\)+$/g, ''))
    .filter((c) => c !== '');
  if (backgrounds && (count === Infinity || (count !== undefined && count >= 1000)))
    ctx.add('resource-abuse', `${detail} (keeps starting processes)`);
  else if (backgrounds && commands.some((c) => BURNS.test(c)))
    ctx.add('resource-abuse', `${detail} (a busy process per iteration)`);
  else if (count === Infinity && commands.length > 0 && commands.every((c) => /^(:|true|\(\(.*\)\)|let\s.*)$/.test(c)))
    ctx.add('resource-abuse', `${detail} (a loop that only burns a core)`);
  else if (count === Infinity && REQUEST.test(text) && !SLEEPS.test(text)) {
    const hosts = [...text.matchAll(/https?:\/\/[^\s'"]+|(?:^|\s)(\d+\.\d+\.\d+\.\d+)/g)].map((m) => m[0].trim());
    if (hosts.length > 0 && hosts.some((h) => !LOCAL.test(h)))
      ctx.add('resource-abuse', `${detail} (requests another host without a pause)`);
  }
}

/** `seq 1 1000000 | xargs -P 500 -I{} curl ...`: hundreds of parallel requests to another host. */
export function parallelRequests(pipelineText: string, ctx: CheckContext): void {
  const p = /\bxargs\b[^|]*\s-P\s*(\d+)[^|]*\b(curl|wget|http|xh|ab)\b([^|]*)/.exec(pipelineText);
  if (p && Number(p[1]) >= 100) {
    const url = /https?:\/\/\S+/.exec(p[3]!)?.[0] ?? '';
    if (url !== '' && !LOCAL.test(url))
      ctx.add('resource-abuse', `${pipelineText.slice(0, 80)} (hundreds of requests at once)`);
  }
}
