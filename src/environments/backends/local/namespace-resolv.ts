// The resolv.conf a task's network namespace needs, from this machine's: a nameserver on loopback (systemd-resolved's
// 127.0.0.53, a local dnsmasq) is the namespace's own loopback there, where nothing answers, so it becomes
// slirp4netns's forwarder, which asks this machine's resolver. Workflow-safe (pure).

/** slirp4netns's default guest network is 10.0.2.0/24; its DNS forwarder sits at .3. */
const SLIRP_DNS = '10.0.2.3';

const loopback = (address: string): boolean => address.startsWith('127.') || address === '::1';

/**
 * `text` with each loopback nameserver replaced by the forwarder (listed once, where the first was); every other
 * line as it was. Undefined when no nameserver is on loopback (the machine's file serves as it is).
 */
export function namespaceResolvText(text: string): string | undefined {
  let changed = false;
  let forwarder = false;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const server = /^\s*nameserver\s+(\S+)/.exec(line)?.[1];
    if (server === undefined || !loopback(server)) {
      lines.push(line);
      continue;
    }
    changed = true;
    if (!forwarder) lines.push(`nameserver ${SLIRP_DNS}`);
    forwarder = true;
  }
  return changed ? lines.join('\n') : undefined;
}
