// `tether egress-ca`: the egress proxy's CA in TETHER_HOME (where it is, what it is called, its fingerprint and
// dates), and `--rotate` to replace it; workers take a new CA when they next start. Worker-only (it reads the key).
import { X509Certificate } from 'node:crypto';
import type { Command } from 'commander';
import { caFiles, loadAuthority, rotateAuthority } from '../environments/egress/ca.js';

export function addEgressCaCommand(program: Command): void {
  program
    .command('egress-ca')
    .description("The egress proxy's certificate authority: show it, or --rotate to make a new one")
    .option('--rotate', 'remove the CA and make a new one (restart the workers: each keeps its CA until it restarts)')
    .option('--pem', 'print the CA certificate (PEM) only, to trust it elsewhere')
    .action(async (opts: { rotate?: boolean; pem?: boolean }) => {
      const files = caFiles();
      const ca = opts.rotate ? await rotateAuthority(files) : await loadAuthority(files);
      if (opts.pem) return void process.stdout.write(ca.certPem);
      const cert = new X509Certificate(ca.certPem);
      process.stdout.write(
        [
          `${opts.rotate ? 'made a new CA' : 'CA'}: ${files.cert} (its key: ${files.key}, hidden from every command)`,
          `  subject: ${cert.subject.replace(/\n/g, ', ')}`,
          `  sha256:  ${cert.fingerprint256}`,
          `  valid:   ${cert.validFrom} to ${cert.validTo}`,
          ...(opts.rotate
            ? ['  workers take it when they next start; until then each keeps the one it started with']
            : []),
          '',
        ].join('\n'),
      );
    });
}
