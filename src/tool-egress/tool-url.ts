// A URL a tool was given (by the model, a redirect or a page), read into the one target spelling the egress gate
// decides on: http(s) only, no user name or password, the host as normalizeHost writes it (IDN to punycode, lower
// case, no trailing dot; numeric spellings other than a dotted quad, zone ids and localhost refused). Worker-only.
import { isIP } from 'node:net';
import { target, type Target } from '../environments/egress/target.js';

/** How much of a URL an approval shows before saying how long it is (a URL can carry a lot). */
const SHOWN_URL_CHARS = 2_000;

/** The URL and its target, or why a tool does not fetch it (for the model). */
export function toolUrl(raw: string, what = 'fetched'): { url: URL; target: Target } | { error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      error: `${JSON.stringify(raw.slice(0, 200))} is not a valid URL (give an absolute http:// or https:// URL)`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { error: `only http and https URLs can be ${what}, not ${url.protocol} (${shownUrl(url.href)})` };
  // A user name in a URL makes a person reading it see one host while another is reached (https://bank.com@x.test/),
  // and a password in it would be sent to whatever host that is.
  if (url.username !== '' || url.password !== '')
    return { error: `${shownUrl(url.href)}: a URL with a user name or password is not ${what}` };
  // The URL parser already wrote IPv4 numbers as a dotted quad (http://2130706433/ is 127.0.0.1) and names as punycode.
  const t = target(url.hostname, url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port);
  if ('error' in t) return { error: `${shownUrl(url.href)}: ${t.error}` };
  return { url, target: t };
}

/** The URL as an approval or error shows it: whole up to 2,000 characters, else its start and its length. */
export function shownUrl(href: string): string {
  return href.length <= SHOWN_URL_CHARS
    ? href
    : `${href.slice(0, SHOWN_URL_CHARS)}… (${href.length} characters in all)`;
}

/** The server name TLS sends and checks for a target (none for an IP address: SNI carries names only). */
export function tlsName(t: Target): string | undefined {
  return isIP(t.host) === 0 ? t.host : undefined;
}
