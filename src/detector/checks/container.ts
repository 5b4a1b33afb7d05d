// Container escapes: a container run with the host's privileges or file system (`docker|podman|nerdctl|ctr run`
// with --privileged, host namespaces, broad capabilities, confinement switched off, a host disk, the host's root,
// home, system directories or the container socket mounted), `kubectl debug node/...` and pod overrides asking for
// the same (nsenter into PID 1's namespaces is in wrappers.ts). Pure.
import { classifyPath, isBlockDevice } from '../engine/paths.js';
import { literal, type Word } from '../engine/words.js';
import { isMinerName } from './miner.js';
import { show, stdinText, type Check, type CheckContext } from './types.js';
import type { RequestCheck } from '../programs/http/request.js';
import { judges } from './registry.js';
import type { ContainerCheck } from '../programs/containers/call.js';

/** Options of `run`/`create` that take a value (so the value is not the image). */
const VALUE_OPTS = new Set(
  `-v --volume --mount -e --env --env-file --name -p --publish -w --workdir -u --user --network --net --pid --ipc
  --uts --userns --cgroupns --cap-add --cap-drop --security-opt --device --entrypoint --restart -l --label --platform
  -m --memory --cpus --cpu-shares -h --hostname --add-host --dns --tmpfs --gpus --runtime --log-driver --log-opt
  --group-add --shm-size --ulimit --pull --stop-signal -a --attach --link --volumes-from --health-cmd --label-file
  --expose --ip --mac-address --memory-swap --oom-score-adj --pids-limit --sysctl --storage-opt --isolation
  --init-path --stop-timeout --detach-keys --cidfile --snapshotter --rootfs --device-cgroup-rule`.split(/\s+/),
);

/** Capabilities that hand a container the host (mount, ptrace, kernel modules, raw devices, any file). */
const HOST_CAPS = /^(CAP_)?(ALL|SYS_ADMIN|SYS_PTRACE|SYS_MODULE|SYS_RAWIO|DAC_READ_SEARCH|DAC_OVERRIDE|BPF)$/i;
const SOCKET = /(^|\/)(docker|containerd|crio|podman|cri-dockerd)\.sock$|^\/run\/containerd(\/|$)/;
const HOST_NAMESPACES = /^(pid|ipc|userns)$/;
/** Confinement switched off. */
const UNCONFINED = /^((apparmor|seccomp|systempaths)[=:]unconfined|label[=:]disable)$/;

/** A host path mounted into the container: the host's root, home, system directories or the container socket. */
function hostMount(source: string, readOnly: boolean, ctx: CheckContext): boolean {
  if (SOCKET.test(source)) return true;
  if (!/^[/~]/.test(source)) return false; // a named volume or a path relative to the project
  const c = classifyPath(literal(source), ctx.where);
  return c === 'root' || c === 'home' || c === 'system-dir' || (c === 'system-path' && !readOnly);
}

/** `-v SRC:DST[:ro]` and `--mount type=bind,src=SRC,...,readonly`. */
function mountSource(opt: string, value: string): { source: string; readOnly: boolean } | undefined {
  if (opt === '--mount') {
    const fields = new Map(
      value.split(',').map((kv): [string, string] => [kv.replace(/=.*/s, ''), /=(.*)/s.exec(kv)?.[1] ?? 'true']),
    );
    const source = fields.get('source') ?? fields.get('src');
    if (source === undefined || (fields.get('type') ?? 'bind') !== 'bind') return undefined;
    return { source, readOnly: fields.has('readonly') || fields.has('ro') || fields.get('options') === 'ro' };
  }
  const [source, , mode] = value.split(':');
  return source === undefined ? undefined : { source, readOnly: /(^|,)ro(,|$)/.test(mode ?? '') };
}

/**
 * A word of one-letter flags (`-it`, `-itv`, `-v/:/h`, `-e=A`): the first flag that takes a value, with the rest of
 * the word as that value when there is any; undefined when none of its flags takes one.
 */
function shortValued(t: string): { opt: string; value?: string } | undefined {
  for (let j = 1; j < t.length && /[a-zA-Z]/.test(t[j]!); j += 1) {
    const opt = `-${t[j]}`;
    if (VALUE_OPTS.has(opt)) return j + 1 < t.length ? { opt, value: t.slice(j + 1).replace(/^=/, '') } : { opt };
  }
  return undefined;
}

/** Judges the options of a container run; returns the image (the first operand) when there is one. */
function judgeRun(args: Word[], ctx: CheckContext, detail: string): string | undefined {
  const reasons: string[] = [];
  let image: string | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    if (!t.startsWith('-')) {
      image = t;
      break;
    }
    const short = t.startsWith('--') ? undefined : shortValued(t);
    const eq = short ? -1 : t.indexOf('=');
    const opt = short?.opt ?? (eq >= 0 ? t.slice(0, eq) : t);
    const attached = short ? short.value : eq >= 0 ? t.slice(eq + 1) : undefined;
    const takes = VALUE_OPTS.has(opt) && attached === undefined;
    const value = attached ?? (takes ? (args[i + 1]?.text ?? '') : '');
    if (takes) i += 1;
    if (opt === '--privileged' && value !== 'false') reasons.push('--privileged');
    else if (HOST_NAMESPACES.test(opt.slice(2)) && value === 'host') reasons.push(`${opt}=host`);
    else if (opt === '--cap-add' && value.split(',').some((c) => HOST_CAPS.test(c))) reasons.push(`--cap-add ${value}`);
    else if (opt === '--security-opt' && UNCONFINED.test(value)) reasons.push(`--security-opt ${value}`);
    else if (opt === '--device' && (isBlockDevice(value) || /^\/dev\/(k?mem|port)(:|$)/.test(value)))
      reasons.push(`--device ${value}`);
    else if (opt === '--device-cgroup-rule' && /^a\b/.test(value)) reasons.push(`${opt} ${value}`);
    else if (opt === '-v' || opt === '--volume' || opt === '--mount') {
      const m = mountSource(opt, value);
      if (m && hostMount(m.source, m.readOnly, ctx)) reasons.push(`${opt} ${value}`);
    }
  }
  if (reasons.length > 0) ctx.add('container-escape', `${detail} (${reasons.join(', ')})`);
  return image;
}

/** `docker run`, `docker container create`, `ctr run`: the options the container gets, and its image. */
export const containerRun: ContainerCheck = ({ group, verb, rest }, cmd, _io, ctx) => {
  // `docker exec --privileged`: the command gets the host's privileges inside a running container.
  if (verb === 'exec' && rest.some((w) => w.text === '--privileged')) ctx.add('container-escape', show(cmd));
  if (!/^(container|containers|c|compose)?$/.test(group ?? '') || !/^(run|create)$/.test(verb ?? '')) return;
  const image = judgeRun(rest, ctx, show(cmd));
  if (image !== undefined && isMinerName(image)) ctx.add('crypto-miner', `${show(cmd)} (image ${image})`);
};

const POD_ESCAPE = /"(privileged|hostPID|hostIPC|hostNetwork|allowPrivilegeEscalation)"\s*:\s*true|"hostPath"\s*:/;

/** kubectl debug node/NAME gets the node's file system; pod specs given inline may ask for the host. */
const kubectl: Check = (cmd, io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  if (words.includes('debug') && words.some((w) => /^(node|nodes|no)\//.test(w)))
    ctx.add('container-escape', `${show(cmd)} (a debugging pod on the node's root file system)`);
  if (!words.some((w) => /^(run|create|apply|replace|patch)$/.test(w))) return;
  const text = [...words, stdinText(io) ?? ''].join('\n');
  if (POD_ESCAPE.test(text) || /^\s*(privileged|hostPID|hostIPC|hostNetwork):\s*true\b|^\s*hostPath:/m.test(text))
    ctx.add('container-escape', `${show(cmd)} (a pod with the host's privileges or paths)`);
};

/**
 * `curl --unix-socket /var/run/docker.sock -X POST .../containers/create`, or to the daemon's TCP port (2375, 2376):
 * the container API spoken directly, where no flag says what the container gets (a body can bind the host's root and
 * ask for privileges). Reads stay ordinary.
 */
export const containerApiRequest: RequestCheck = (req, cmd, _io, ctx) => {
  const api =
    (req.socket !== undefined && SOCKET.test(req.socket)) ||
    req.urls.some((u) => /^\w+:\/\/[^/]+:237[56](\/|$)/.test(u));
  if (api && req.writes) ctx.add('container-escape', `${show(cmd)} (the container API, written to)`);
};

judges(import.meta.url, { 'kubectl oc': kubectl });
