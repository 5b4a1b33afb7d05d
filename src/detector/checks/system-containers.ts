// System containers and node runtimes with the host: LXD/Incus containers made privileged, given raw LXC settings,
// or handed a host directory or device (`lxc config set c security.privileged true`, `incus config device add c d disk
// source=/`), and shells opened straight through a Kubernetes node's runtime (`crictl exec`, `ctr task exec`), which
// bypass the cluster's access control and audit log. Reading config and listing stay ordinary. Pure.
import { when } from './types.js';
import { judges } from './registry.js';

/** Host paths whose mount gives a container the machine: the root, system directories, homes, runtime sockets. */
const HOST_PATH =
  /^(\/|\/(etc|root|var|usr|boot|dev|proc|sys|run|lib|lib64|bin|sbin)(\/.*)?|\/(home|Users)(\/[^/]+)?\/?|~\/?|\$HOME\/?|.*\/\.(ssh|aws|kube|gnupg|docker)(\/.*)?)$/;

const lxd = when('container-escape', (w) => {
  const ops = w.filter((t) => !t.startsWith('-'));
  const setting = ops.find(
    (t, i) =>
      i > 0 &&
      /^(security\.(privileged|nesting|idmap\.isolated|syscalls\.\S+)|raw\.(lxc|apparmor|seccomp|idmap|qemu\S*)|linux\.kernel_modules)(=|$)/.test(
        t,
      ),
  );
  if (ops[0] === 'config' && /^(set|edit)$/.test(ops[1] ?? '') && setting !== undefined) {
    const value = setting.includes('=') ? setting.split('=')[1] : ops[ops.indexOf(setting) + 1];
    if (!/^(security\.(privileged|nesting))$/.test(setting.split('=')[0]!) || /^(true|1|yes)$/i.test(value ?? ''))
      return true;
  }
  // `lxc launch img c -c security.privileged=true`
  const privileged = (t: string): boolean => /^(security\.privileged|security\.nesting)=true$|^raw\./.test(t);
  if (w.some((t, i) => /^(-c|--config)$/.test(w[i - 1] ?? '') && privileged(t))) return true;
  // `lxc config device add c hostroot disk source=/ path=/mnt/root`, `... unix-block source=/dev/sda`
  if (ops[0] !== 'config' || ops[1] !== 'device' || !/^(add|set|override)$/.test(ops[2] ?? '')) return false;
  const source = w.find((t) => /^source=/.test(t))?.slice('source='.length);
  return (
    (source !== undefined && HOST_PATH.test(source)) || ops.some((t) => /^(unix-block|unix-char|gpu|usb|pci)$/.test(t))
  );
});

/** crictl exec / ctr task exec / ctr run --privileged: a shell in a node's container, past the cluster's RBAC. */
const nodeRuntime = when('container-escape', (w, cmd) => {
  const ops = w.filter((t) => !t.startsWith('-'));
  if (cmd.name === 'crictl') return /^(exec|attach|runp|run)$/.test(ops[0] ?? '');
  return (
    cmd.name === 'ctr' &&
    ((ops.includes('task') && /^(exec|attach)$/.test(ops[ops.indexOf('task') + 1] ?? '')) ||
      w.some((t) => /^--(privileged|mount=.*src=\/[,:]|rootfs)/.test(t)))
  );
});

judges(import.meta.url, { 'lxc incus': lxd, 'crictl ctr': nodeRuntime });
