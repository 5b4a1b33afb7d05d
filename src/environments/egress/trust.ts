// What the egress proxy trusts and what commands trust: upstream, this machine's CA bundle plus
// egress.upstream_ca_file; inside a sandbox, the machine's bundle plus the proxy's CA (ca.ts), as files bound over
// the machine's bundle paths and named by the variables tools read. Made once per worker. Worker-only.
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { TetherError } from '../../common/errors.js';
import { LeafIssuer, loadAuthority, caFiles } from './ca.js';

/** Where systems keep their CA bundle (Debian/Ubuntu/Alpine, Fedora/RHEL, openSUSE, the BSD-style cert.pem). */
export const SYSTEM_BUNDLES: readonly string[] = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

/** Inside a sandbox or container: the machine's bundle plus the proxy's CA, and the CA alone. */
export const SANDBOX_BUNDLE = '/run/tether/ca-bundle.pem';
export const SANDBOX_CA = '/run/tether/egress-ca.pem';

/**
 * The variables that point tools at the bundle (or, for Node, which adds to its own roots, at the CA alone): curl,
 * git, OpenSSL and Go (SSL_CERT_FILE), Python's requests and pip, cargo, npm, the AWS CLI and Deno.
 */
export const TRUST_VARIABLES: Readonly<Record<string, string>> = {
  SSL_CERT_FILE: SANDBOX_BUNDLE,
  CURL_CA_BUNDLE: SANDBOX_BUNDLE,
  GIT_SSL_CAINFO: SANDBOX_BUNDLE,
  REQUESTS_CA_BUNDLE: SANDBOX_BUNDLE,
  PIP_CERT: SANDBOX_BUNDLE,
  CARGO_HTTP_CAINFO: SANDBOX_BUNDLE,
  npm_config_cafile: SANDBOX_BUNDLE,
  AWS_CA_BUNDLE: SANDBOX_BUNDLE,
  DENO_CERT: SANDBOX_BUNDLE,
  NODE_EXTRA_CA_CERTS: SANDBOX_CA,
};

/** The machine's bundle files that exist, by their real paths (a link is bound over where it leads). */
export function machineBundles(): string[] {
  const out = new Set<string>();
  for (const p of SYSTEM_BUNDLES)
    try {
      if (existsSync(p)) out.add(realpathSync(p));
    } catch {
      // unreadable: not one to bind over
    }
  return [...out];
}

/** The worker's trust: the leaf issuer, the upstream context, and the files a sandbox binds. */
export interface Trust {
  issuer: LeafIssuer;
  /** For the proxy's own TLS connections upstream. */
  upstream: SecureContext;
  /** On this machine: the bundle (machine's + the CA) and the CA alone; bound at SANDBOX_BUNDLE and SANDBOX_CA. */
  bundleFile: string;
  caFile: string;
  /** The machine's bundle paths the bundle is bound over inside a sandbox. */
  over: string[];
}

/**
 * Loads (or makes) the CA, writes the bundle files into a directory named for this worker (removed by a later
 * worker once this one is gone, as the sandbox's other directories are), and makes the upstream context. A failure
 * is a configuration error naming what to change.
 */
export async function loadTrust(upstreamCaFile: string | undefined): Promise<Trust> {
  const files = caFiles();
  let authority;
  try {
    authority = await loadAuthority(files);
  } catch (err) {
    throw new TetherError(
      'Config.Invalid',
      `terminal.local.sandbox.egress: the proxy's CA in ${files.dir} cannot be made or read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); check TETHER_HOME, or make a new one with tether egress-ca --rotate`,
      false,
    );
  }
  const over = machineBundles();
  const machine = over.length > 0 ? readFileSync(over[0]!, 'utf8') : rootCertificates.join('\n');
  let extra = '';
  if (upstreamCaFile) {
    try {
      extra = readFileSync(upstreamCaFile, 'utf8');
    } catch (err) {
      throw new TetherError(
        'Config.Invalid',
        `terminal.local.sandbox.egress.upstream_ca_file: ${upstreamCaFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        false,
      );
    }
  }
  let upstream: SecureContext;
  try {
    upstream = createSecureContext({ ca: extra ? [machine, extra] : machine, minVersion: 'TLSv1.2' });
  } catch (err) {
    throw new TetherError(
      'Config.Invalid',
      `terminal.local.sandbox.egress.upstream_ca_file: ${upstreamCaFile ?? 'the machine CA bundle'} holds no usable certificate (${(err as Error).message})`,
      false,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), `tether-sandbox-${process.pid}-trust-`));
  const bundleFile = join(dir, 'ca-bundle.pem');
  const caFile = join(dir, 'egress-ca.pem');
  writeFileSync(bundleFile, `${machine.trimEnd()}\n${authority.certPem}`, { mode: 0o644 });
  writeFileSync(caFile, authority.certPem, { mode: 0o644 });
  return { issuer: new LeafIssuer(authority), upstream, bundleFile, caFile, over };
}

let trust: { key: string; promise: Promise<Trust> } | undefined;

/** This worker's trust, made once for its upstream_ca_file setting (again only when that changes). */
export function egressTrust(upstreamCaFile?: string): Promise<Trust> {
  const key = upstreamCaFile ?? '';
  if (!trust || trust.key !== key) {
    const promise = loadTrust(upstreamCaFile);
    trust = { key, promise };
    promise.catch(() => {
      if (trust?.promise === promise) trust = undefined;
    });
  }
  return trust.promise;
}
