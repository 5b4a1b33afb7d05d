// The outside host of eval:contained, run in a network namespace of its own behind a veth pair: every TCP connection
// and UDP datagram that leaves the eval's namespace is redirected here (iptables), whatever address it was sent to.
// It answers DNS queries for every name with its own address, answers HTTP with an empty 200, and reports each
// arrival as one JSON line on standard output. Worker-side helper process (eval only).
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

const TCP_PORT = Number(process.argv[2] ?? 9);
const UDP_PORT = Number(process.argv[3] ?? 53);
const SELF = process.argv[4] ?? '100.64.0.2';
const MAX_BYTES = 64 * 1024;

const report = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ at: Date.now(), ...event })}\n`);
};

/** The server name a TLS ClientHello asks for (SNI), if the bytes hold one. */
function sniOf(b: Buffer): string | undefined {
  try {
    let i = 5 + 4 + 2 + 32; // record header, handshake header, version, random
    i += 1 + b[i]!; // session id
    i += 2 + b.readUInt16BE(i); // cipher suites
    i += 1 + b[i]!; // compression methods
    const end = i + 2 + b.readUInt16BE(i);
    i += 2;
    while (i + 4 <= end) {
      const type = b.readUInt16BE(i);
      const len = b.readUInt16BE(i + 2);
      if (type === 0) return b.subarray(i + 9, i + 4 + len).toString('latin1');
      i += 4 + len;
    }
  } catch {
    // a short or odd hello: no name
  }
  return undefined;
}

createServer((socket) => {
  const chunks: Buffer[] = [];
  let size = 0;
  let answered = false;
  const from = `${socket.remoteAddress}:${socket.remotePort}`;
  const done = (): void => {
    const bytes = Buffer.concat(chunks);
    if (bytes.length === 0) return report({ kind: 'tcp', from, bytes: 0, text: '' });
    const tls = bytes[0] === 0x16;
    report({
      kind: 'tcp',
      from,
      bytes: bytes.length,
      ...(tls ? { tls: true, sni: sniOf(bytes) } : {}),
      text: bytes.toString('latin1'),
    });
  };
  socket.on('data', (d: Buffer) => {
    if (size < MAX_BYTES) chunks.push(d.subarray(0, MAX_BYTES - size));
    size += d.length;
    const text = Buffer.concat(chunks).toString('latin1');
    // Answer a whole HTTP request (its body read as far as Content-Length says) so the client finishes.
    const head = text.indexOf('\r\n\r\n');
    if (!answered && /^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/.test(text) && head >= 0) {
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
      if (text.length - head - 4 >= length || size >= MAX_BYTES) {
        answered = true;
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      }
    }
  });
  socket.on('error', () => undefined);
  socket.on('close', done);
  // Anything else (a shell, a raw stream) is held open a while, then closed.
  socket.setTimeout(5_000, () => socket.destroy());
}).listen(TCP_PORT, '0.0.0.0', () => report({ kind: 'ready' }));

/** The query name of a DNS message, or undefined. */
function dnsName(msg: Buffer): { name: string; type: number; end: number } | undefined {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let i = 12;
  while (i < msg.length && msg[i] !== 0) {
    const len = msg[i]!;
    if (len > 63) return undefined;
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('latin1'));
    i += 1 + len;
  }
  if (i + 5 > msg.length) return undefined;
  return { name: labels.join('.'), type: msg.readUInt16BE(i + 1), end: i + 5 };
}

const udp = createSocket('udp4');
udp.on('message', (msg, rinfo) => {
  const q = dnsName(msg);
  if (!q) {
    report({ kind: 'udp', from: `${rinfo.address}:${rinfo.port}`, bytes: msg.length, text: msg.toString('latin1') });
    return;
  }
  report({ kind: 'dns', from: `${rinfo.address}:${rinfo.port}`, name: q.name, type: q.type });
  // Every A query is answered with this host's address; other types get no records.
  const header = Buffer.from(msg.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(q.type === 1 ? 1 : 0, 6);
  header.writeUInt32BE(0, 8);
  const question = msg.subarray(12, q.end);
  const answer =
    q.type === 1
      ? Buffer.concat([
          Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4]),
          Buffer.from(SELF.split('.').map(Number)),
        ])
      : Buffer.alloc(0);
  udp.send(Buffer.concat([header, question, answer]), rinfo.port, rinfo.address);
});
udp.bind(UDP_PORT, '0.0.0.0');
