// Public exposure: a local port made reachable from the internet through a tunnel service (ngrok, cloudflared,
// tailscale funnel, localtunnel, chisel/frp reverse forwards, VS Code tunnels), or a listener explicitly bound to
// every interface that has no authentication, forwards to another host, or serves a private tree. A dev server on
// 127.0.0.1, a plain `-p 8080:80` and `kubectl port-forward` to localhost stay ordinary. Judged for every command
// (like miners: the shape of the arguments, whatever the program is called). Pure.
import { keyTable } from '../engine/names.js';
import type { Argv } from '../engine/argv.js';
import { isPrivateTree } from './secret-sources.js';
import { show, valueAt, type CheckContext } from './types.js';

/** A tunnel service's words open a tunnel with one of these verbs (the rest configure, log in or list). */
function verbs(re: RegExp): (w: string[]) => boolean {
  return (w) => w.some((t) => re.test(t)) && !w.includes('--help');
}

/** Tunnel services by name: whether their words open a tunnel (cloudflared tunnel --url, tailscale funnel 443). */
const TUNNELS = keyTable<(w: string[]) => boolean>({
  ngrok: verbs(/^(http|tcp|tls|start|tunnel)$/),
  cloudflared: (w) =>
    w[0] === 'tunnel'
      ? w.some((t) => /^--url(=|$)/.test(t)) || w.includes('run') || w.includes('--hello-world')
      : verbs(/^(tunnel|--url|access)$/)(w),
  lt: verbs(/^--port$|^-p$/),
  'localtunnel pinggy frpc': verbs(/./),
  zrok: verbs(/^(share|reserve)$/),
  loclx: verbs(/^tunnel$/),
  expose: verbs(/^share$/),
  devtunnel: verbs(/^host$/),
  telebit: verbs(/^http$/),
  tailscale: (w) => w[0] === 'funnel' && !w.includes('off') && !w.includes('status'),
  'code code-insiders': (w) => w[0] === 'tunnel' && !/^(status|user|kill|prune)$/.test(w[1] ?? ''),
  chisel: (w) => w[0] === 'client' && w.some((t) => /^R:/.test(t)),
});

/** A word that binds every interface: `0.0.0.0`, `0.0.0.0:8080`, `--ip=0.0.0.0`, `bind=0.0.0.0`, `[::]:80`, `--ip=*`. */
const ALL_INTERFACES = /(^|[=,@])(0\.0\.0\.0|\[::\]|::)(:\d+)*(,|$)|=\*$/;
/** Authentication switched off: an empty token or password, protected mode off, auth none. */
const NO_AUTH =
  /^--?[\w.-]*(token|password|passwd)=$|^--(no-auth|noauth|disable-auth|without-auth|no-password|allow-anonymous)$|^--auth(=none)?$/i;
const LOCAL_TARGET = /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?|0\.0\.0\.0)$/;

/** The value after the first option named by `option` (`--opt value` or `--opt=value`). */
const valueOf = (words: string[], option: RegExp): string | undefined =>
  words.map((_, i) => valueAt(words, i, option)).find((v) => v !== undefined);

/** What a listener bound to every interface hands out, or undefined when nothing beyond the port itself. */
function exposed(cmd: Argv, words: string[]): string | undefined {
  // `--listen :80`, `--addr :2022` (Go's every interface), socat's TCP-LISTEN without a loopback bind.
  const listen = valueOf(words, /^--?(listen|addr|address|bind|http-addr|listen-addr)$/);
  const every =
    words.some((w) => ALL_INTERFACES.test(w)) ||
    (listen !== undefined && /^:\d+$/.test(listen)) ||
    words.some((w) => /^TCP\d?-LISTEN:\d+/i.test(w) && !/bind=(127\.|localhost|\[?::1)/i.test(w));
  if (!every) return undefined;
  if (words.some((w) => /^UNIX-CONNECT:.*(docker|containerd|podman|crio|kubelet)[\w.-]*\.sock/i.test(w)))
    return 'the container API';
  // Protected mode off is written `--protected-mode no` (redis).
  if (words.some((w, i) => NO_AUTH.test(w) || (/^--?protected-mode$/.test(w) && /^no$/i.test(words[i + 1] ?? ''))))
    return 'without authentication';
  if (/^(kubectl|oc)$/.test(cmd.name ?? '') && words.includes('port-forward')) return 'a cluster service';
  // socat TCP-LISTEN:...,bind=0.0.0.0 TCP:db.internal:5432: a relay to another host.
  const remoteTarget = (w: string): boolean => !LOCAL_TARGET.test(/^TCP\d?:([^:,]+):/i.exec(w)?.[1] ?? 'localhost');
  if (words.some((w) => /^TCP\d?-LISTEN:/i.test(w)) && words.some(remoteTarget)) return 'a relay to another host';
  const root = valueOf(words, /^(-t|--directory|-d|--root|--docroot|--document-root|-h|--home)$/);
  if (root !== undefined && isPrivateTree(root)) return `the tree ${root}`;
  const tree = words.find((w, i) => i > 0 && !words[i - 1]!.startsWith('-') && isPrivateTree(w));
  const serves = /serve|http/.test(cmd.name ?? '') || words.some((w) => /^(serve|file-server|share|http)$/.test(w));
  if (tree !== undefined && serves) return `the tree ${tree}`;
  return undefined;
}

export function checkExposure(cmd: Argv, ctx: CheckContext): void {
  const words = cmd.args.map((a) => a.text);
  if (TUNNELS[cmd.name ?? '']?.(words)) return ctx.add('expose-service', `${show(cmd)} (a public tunnel)`);
  // A cluster service put on a public load balancer or every node's port.
  const changes = /^(patch|expose|create|edit|set|apply)$/.test(words.find((w) => !w.startsWith('-')) ?? '');
  const publicType = (w: string, i: number): boolean =>
    /"type"\s*:\s*"?(LoadBalancer|NodePort)/.test(w) ||
    (/^(LoadBalancer|NodePort)$/.test(w) && words[i - 1] === '--type') ||
    /^--type=(LoadBalancer|NodePort)$/.test(w);
  const kubectl = /^(kubectl|oc)$/.test(cmd.name ?? '');
  const what = exposed(cmd, words);
  if (kubectl && changes && !words.some((w) => w.startsWith('--dry-run')) && words.some(publicType))
    ctx.add('expose-service', `${show(cmd)} (a service opened outside the cluster)`);
  else if (what !== undefined) ctx.add('expose-service', `${show(cmd)} (every interface, ${what})`);
}
