// The line a failed command's result carries when the network was the reason: what the egress proxy refused, or,
// when the command failed to reach the network at all, that only the proxy leads out. Worker-only (pure text).

/** Errors of a program that tried the network directly (no route, no DNS inside the sandbox). */
const NO_NETWORK =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|EAI_AGAIN|getaddrinfo|No address associated with hostname|nodename nor servname|Failed to establish a new connection/i;

/** The proxy's refusals during the command, or the no-direct-network hint; undefined when neither applies. */
export function networkNote(
  output: string,
  refusals: readonly string[],
  where = 'the local sandbox',
): string | undefined {
  if (refusals.length > 0)
    return (
      `tether's egress proxy refused: ${refusals.join('; ')}. A host outside terminal.local.sandbox.egress.allow, ` +
      'or a write to a host allowed only for reading, needs a person to approve it (network: HOST:PORT in the ' +
      'approvals); do not retry what was refused, ask the user'
    );
  if (!NO_NETWORK.test(output)) return undefined;
  return (
    `${where} has no direct network: programs reach the outside only through tether's egress proxy, which ` +
    'HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (socks5h) name; a program that ignores those variables cannot connect ' +
    `(give it the proxy in its own settings), and names are resolved by the proxy, not inside ${where}`
  );
}
