// The address the metrics endpoint listens on (--metrics HOST:PORT, observability.metrics), checked before the
// Temporal runtime binds it: the runtime takes an IP address and a port only. Worker-only.
import { isIP } from 'node:net';

/** The address as the runtime takes it (`127.0.0.1:9464`, `[::1]:9464`), or why the value is not one. */
export function parseMetricsAddress(value: string): { address: string } | { problem: string } {
  const v = value.trim();
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(v);
  const example = 'give HOST:PORT with an IP address, for example 127.0.0.1:9464 or [::1]:9464';
  if (!m) return { problem: `'${value}' is not HOST:PORT: ${example}` };
  const port = Number(m[3]);
  if (port > 65_535) return { problem: `'${value}': port ${port} is above 65535` };
  const v6 = m[1];
  const host = v6 ?? (m[2] === 'localhost' ? '127.0.0.1' : m[2]!);
  if (v6 !== undefined ? isIP(v6) !== 6 : isIP(host) !== 4)
    return { problem: `'${value}': '${v6 ?? m[2]}' is not an IP address; ${example}` };
  return { address: v6 !== undefined ? `[${v6}]:${port}` : `${host}:${port}` };
}
