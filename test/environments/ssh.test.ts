// The conformance suite on the SSH backend: Debian's real sshd on a loopback port with a throw-away key.
import { sshdAvailable, startSshd } from '../support/sshd-fixture.js';
import { describeConformance } from './conformance.js';

describeConformance('ssh', async () => {
  const why = sshdAvailable();
  if (why) return why;
  const sshd = await startSshd();
  return {
    terminal: {
      backend: 'ssh',
      ssh: {
        host: '127.0.0.1',
        port: sshd.port,
        user: sshd.user,
        key_path: sshd.keyPath,
        known_hosts: sshd.knownHostsPath,
        cwd: sshd.dir,
      },
    },
    hostCwd: process.cwd(),
    // The server restarts; the connection is made again and the task's state on the host is still there.
    breakEnvironment: () => sshd.restart(),
    recreatedAfterBreak: false,
    persistentShell: true,
    stop: () => sshd.dispose(),
  };
});
