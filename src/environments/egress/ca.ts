// The egress proxy's certificate authority: one ECDSA P-256 CA kept in TETHER_HOME/egress-ca (hidden from every
// command, as TETHER_HOME is), made on first use and replaced on request (`tether egress-ca --rotate`), and the leaf
// certificates it signs for each host the proxy opens, made on demand and kept in memory. Certificates are built by
// @peculiar/x509 on Node's WebCrypto; nothing here encodes or signs by hand. Worker-only.
// @peculiar/x509 2.x loads tsyringe, which needs the Reflect metadata API at import time (x509 does not declare it).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import { makeDirs, tetherHome } from '../../config/home.js';

const subtle = webcrypto.subtle;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
/** The CA lives this long unless rotated; a leaf a week (made again a day before it ends). */
const CA_YEARS = 5;
const LEAF_MS = 7 * 24 * 3600_000;
const LEAF_RENEW_MS = 24 * 3600_000;
/** Leaf contexts kept (one per host a task reached); the oldest goes first. */
const MAX_LEAVES = 2_000;

export const CA_DIR = 'egress-ca';
const CERT_FILE = 'ca.pem';
const KEY_FILE = 'ca-key.pem';

export interface CaFiles {
  dir: string;
  cert: string;
  key: string;
}

export function caFiles(home = tetherHome()): CaFiles {
  const dir = join(home, CA_DIR);
  return { dir, cert: join(dir, CERT_FILE), key: join(dir, KEY_FILE) };
}

export interface Authority {
  /** The CA certificate, PEM: what commands are told to trust. */
  certPem: string;
  cert: x509.X509Certificate;
  key: CryptoKey;
}

/** A random positive serial number of 16 bytes, as hex. */
const serial = (): string => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
};

/** A new CA in `files.dir`, written to a directory of its own and renamed into place (a race with another worker loses cleanly). */
async function createCa(files: CaFiles): Promise<void> {
  const keys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=tether egress proxy CA (${hostname().replace(/[,=+<>#;"\\]/g, '-')}), O=tether`,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + CA_YEARS * 365 * 24 * 3600_000),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const keyPem = x509.PemConverter.encode(await subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  const parent = join(files.dir, '..');
  makeDirs(parent);
  const staging = mkdtempSync(join(parent, `.${CA_DIR}-`));
  try {
    chmodSync(staging, 0o700);
    writeFileSync(join(staging, KEY_FILE), keyPem, { mode: 0o600 });
    writeFileSync(join(staging, CERT_FILE), cert.toString('pem'), { mode: 0o644 });
    renameSync(staging, files.dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    // Another worker made it first: theirs is used.
    if (!existsSync(files.cert)) throw err;
  }
}

/** The CA in TETHER_HOME, made when there is none yet. */
export async function loadAuthority(files: CaFiles = caFiles()): Promise<Authority> {
  if (!existsSync(files.cert) || !existsSync(files.key)) await createCa(files);
  const certPem = readFileSync(files.cert, 'utf8');
  const der = createPrivateKey(readFileSync(files.key, 'utf8')).export({ type: 'pkcs8', format: 'der' });
  const key = await subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
  return { certPem, cert: new x509.X509Certificate(certPem), key };
}

/**
 * Replaces the CA: the old one is removed and a new one made. Running workers keep the CA they started with until
 * they restart (their tasks' sandboxes trust that one).
 */
export async function rotateAuthority(files: CaFiles = caFiles()): Promise<Authority> {
  rmSync(files.dir, { recursive: true, force: true });
  return loadAuthority(files);
}

/** Makes and keeps the leaf certificate of each host: one key pair for every leaf, made in memory per process. */
export class LeafIssuer {
  private readonly leaves = new Map<string, { context: Promise<SecureContext>; renewAt: number }>();
  private leafKeys: Promise<{ keys: CryptoKeyPair; pem: string }> | undefined;

  constructor(private readonly ca: Authority) {}

  /** The TLS context presenting a certificate for `host` (a name, or an IP literal when `ip` is 4 or 6). */
  context(host: string, ip: 0 | 4 | 6): Promise<SecureContext> {
    const known = this.leaves.get(host);
    if (known && Date.now() < known.renewAt) {
      // Most recently used last: the oldest is dropped first.
      this.leaves.delete(host);
      this.leaves.set(host, known);
      return known.context;
    }
    const context = this.issue(host, ip);
    this.leaves.set(host, { context, renewAt: Date.now() + LEAF_MS - LEAF_RENEW_MS });
    if (this.leaves.size > MAX_LEAVES) this.leaves.delete(this.leaves.keys().next().value!);
    context.catch(() => this.leaves.delete(host));
    return context;
  }

  private async issue(host: string, ip: 0 | 4 | 6): Promise<SecureContext> {
    this.leafKeys ??= (async () => {
      const keys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
      return { keys, pem: x509.PemConverter.encode(await subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') };
    })();
    const { keys, pem } = await this.leafKeys;
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      // A common name holds at most 64 characters; the name that counts is the subjectAltName.
      subject: ip === 0 && host.length <= 64 ? `CN=${host}` : 'O=tether egress proxy',
      issuer: this.ca.cert.subject,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + LEAF_MS),
      publicKey: keys.publicKey,
      signingKey: this.ca.key,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: ip === 0 ? 'dns' : 'ip', value: host }]),
        await x509.AuthorityKeyIdentifierExtension.create(this.ca.cert),
      ],
    });
    return createSecureContext({ key: pem, cert: cert.toString('pem'), minVersion: 'TLSv1.2' });
  }
}
