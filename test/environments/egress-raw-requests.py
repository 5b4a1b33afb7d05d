# Run inside the sandbox by egress-read-attacks.test.ts: reads a JSON list of cases, runs each against the egress proxy, prints JSON.
import json, os, socket, ssl, sys, time
port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])
cases = json.load(open(sys.argv[1]))
sessions = {}
def readall(s, secs):
    s.settimeout(secs)
    out = b''
    try:
        while True:
            c = s.recv(65536)
            if not c: break
            out += c
    except Exception as e:
        pass
    return out
res = []
for c in cases:
    out = {'name': c['name']}
    try:
        s = socket.create_connection(('127.0.0.1', port), 5)
        kind = c['kind']
        if kind == 'raw':
            s.sendall(bytes.fromhex(c['send']))
            out['reply'] = readall(s, c.get('seconds', 3)).decode('latin-1')
        elif kind == 'socks':
            s.sendall(b'\x05\x01\x00')
            g = s.recv(2)
            s.sendall(bytes.fromhex(c['request']))
            s.settimeout(5)
            r = s.recv(10)
            out['socks'] = r.hex()
            if c.get('send') and len(r) > 1 and r[1] == 0:
                s.sendall(bytes.fromhex(c['send']))
                out['reply'] = readall(s, c.get('seconds', 3)).decode('latin-1')
        elif kind == 'tls':
            s.sendall(('CONNECT %s HTTP/1.1\r\n%s\r\n' % (c['connect'], c.get('connectHeaders', 'Host: %s\r\n' % c['connect']))).encode('latin-1'))
            head = b''
            s.settimeout(5)
            while b'\r\n\r\n' not in head:
                ch = s.recv(1)
                if not ch: break
                head += ch
            out['connect'] = head.split(b'\r\n')[0].decode('latin-1')
            if not out['connect'].startswith('HTTP/1.1 200'):
                out['reply'] = (head + readall(s, 1)).decode('latin-1')
            else:
                ctx = ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])
                if c.get('nocheck'):
                    ctx.check_hostname = False
                if c.get('tls12'):
                    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
                ctx.set_alpn_protocols(c.get('alpn', ['http/1.1']))
                sni = c.get('sni', c['connect'].rsplit(':', 1)[0])
                sess = sessions.get(c.get('session_in')) if c.get('session_in') else None
                try:
                    t = ctx.wrap_socket(s, server_hostname=sni if sni else None, session=sess)
                    out['alpn'] = t.selected_alpn_protocol()
                    out['cert'] = dict(x[0] for x in t.getpeercert()['subject']).get('commonName') if t.getpeercert() else None
                    t.sendall(bytes.fromhex(c['send']))
                    out['reply'] = readall(t, c.get('seconds', 3)).decode('latin-1')
                    out['reused'] = t.session_reused
                    if c.get('session_out'):
                        sessions[c['session_out']] = t.session
                except ssl.SSLError as e:
                    out['error'] = str(e)
                except (ConnectionResetError, BrokenPipeError, OSError) as e:
                    out['error'] = 'os: ' + str(e)
        s.close()
    except Exception as e:
        out['error'] = 'outer: ' + repr(e)
    res.append(out)
print(json.dumps(res))
