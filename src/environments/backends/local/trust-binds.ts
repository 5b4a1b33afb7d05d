// What a sandboxed command trusts when the egress proxy reads its HTTPS: the worker's bundle (this machine's CA
// bundle plus the proxy's CA) bound read-only over the machine's bundle paths and at /run/tether, and the CA alone
// beside it (trust.ts names them). Worker-only (pure: bwrap arguments).
import { SANDBOX_BUNDLE, SANDBOX_CA } from '../../egress/trust.js';

/** The worker's bundle files (on this machine) and the machine's bundle paths to bind the bundle over. */
export interface TrustFiles {
  bundleFile: string;
  caFile: string;
  over: readonly string[];
}

/**
 * bwrap's arguments for the trust files; they go after `/run` is made an empty tmpfs (bwrap makes the mount points
 * there). Nothing without the egress proxy.
 */
export function trustBinds(trust: TrustFiles | undefined): string[] {
  if (!trust) return [];
  const args = ['--ro-bind', trust.bundleFile, SANDBOX_BUNDLE, '--ro-bind', trust.caFile, SANDBOX_CA];
  for (const path of trust.over) args.push('--ro-bind', trust.bundleFile, path);
  return args;
}
