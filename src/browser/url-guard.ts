// Which URLs browser_navigate may open: http(s) only and, unless browser.allow_private, no internal address. Worker-only.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { bareHost, blockedAddressReason } from '../web/address-policy.js';

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/**
 * Undefined when `raw` may be opened, else the reason for the model. The ranges are the web tools' (one policy);
 * Chromium resolves the name again itself, so a DNS answer that changes in between is not caught here, and
 * redirects and clicked links are checked by the session's route guard.
 */
export async function refuseUrl(
  raw: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${JSON.stringify(raw)} is not a valid URL (give an absolute http:// or https:// URL)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `only http and https URLs can be opened, not ${url.protocol} (${raw})`;
  if (allowPrivate) return undefined;
  const host = bareHost(url);
  let addresses: string[];
  try {
    addresses = isIP(host) === 0 ? await resolve(host) : [host];
  } catch (err) {
    return `cannot resolve ${host}: ${(err as Error).message}`;
  }
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason)
      return `refused to open ${url.href}: ${host === address ? '' : `${host} resolves to ${address}, and `}${reason} (set browser.allow_private to allow it)`;
  }
  return undefined;
}
