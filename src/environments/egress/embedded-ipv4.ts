// The IPv4 address an IPv6 address carries to a translator or tunnel (NAT64, 6to4, Teredo): such an address reaches
// that IPv4 host, so the reserved-address table (addresses.ts) judges it as that host. Worker-only (pure).
/** The eight 16-bit groups of an IPv6 address (a valid one, as isIP said), an embedded dotted IPv4 included. */
export function groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

const ipv4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries to a translator or tunnel: NAT64's well-known prefix (64:ff9b::/96,
 * the last 32 bits), 6to4 (2002::/16, bits 16-47) and Teredo (2001::/32: the server in bits 32-63, the client
 * inverted in the last 32). Each reaches that IPv4 host, so each is judged as it.
 */
export function embeddedIPv4(address: string): string[] {
  const g = groups(address);
  if (g.length !== 8) return [];
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return [ipv4(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [ipv4(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4(g[2]!, g[3]!), ipv4(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return [];
}
