import { describe, expect, it } from 'vitest';
import { words, type Argv } from '../../engine/argv.js';
import { httpRequest, requestUrls } from './request.js';

const read = (line: string) => {
  const [name, ...rest] = line.split(' ');
  const cmd: Argv = { name: name!, written: name!, args: words(rest), viaXargs: false };
  return httpRequest(cmd);
};

describe('httpRequest', () => {
  it('reads no other program', () => {
    expect(read('grep -d x')).toBeUndefined();
  });

  it('sends GET unless a method is written or a body implies one', () => {
    expect(read('curl -fsSL https://example.com/x')).toMatchObject({ method: 'GET', writes: false });
    expect(read('curl -d a=1 https://example.com/x')).toMatchObject({ method: 'POST', writes: true });
    expect(read('curl -T f https://example.com/x')).toMatchObject({ method: 'PUT', writes: true });
    expect(read('curl -XDELETE https://example.com/x')).toMatchObject({ method: 'DELETE', writes: true });
    expect(read('curl --request=patch https://example.com/x')).toMatchObject({ method: 'PATCH' });
    expect(read('curl -X HEAD -d a https://example.com/x')).toMatchObject({ method: 'HEAD', writes: false });
    expect(read('wget --post-data=a=1 https://example.com/x')).toMatchObject({ method: 'POST' });
    expect(read('wget --method=PUT --body-file=f https://example.com/x')).toMatchObject({ method: 'PUT' });
  });

  it("reads httpie's method word and items: fields make a POST, a query parameter does not", () => {
    expect(read('http PUT example.com/x a=1')).toMatchObject({ method: 'PUT' });
    expect(read('http example.com/x a=1')).toMatchObject({ method: 'POST' });
    expect(read('xh example.com/x n:=2')).toMatchObject({ method: 'POST' });
    expect(read('http example.com/x @body.json')).toMatchObject({ method: 'POST' });
    expect(read('http example.com/x q==1 Accept:json')).toMatchObject({ method: 'GET', writes: false });
  });

  it('takes the value of a short option at the end of a cluster, attached or next', () => {
    const req = read('curl -sSLo out.sh https://example.com/i.sh')!;
    expect(req.outputs).toEqual(['out.sh']);
    expect(requestUrls(req)).toEqual(['https://example.com/i.sh']);
    expect(read('curl -sSLoout.sh https://example.com/i.sh')!.outputs).toEqual(['out.sh']);
    expect(read('curl -d@secret.txt https://example.com')!.words[0]).toMatchObject({ kind: 'body', option: '-d' });
  });

  it("knows where each client writes: curl's -o, wget's -O, -o (its log) and -P; curl's -O names no file", () => {
    expect(read('curl -O https://example.com/a.tgz')!.outputs).toEqual([]);
    expect(read('wget -O - https://example.com/a.tgz')!.outputs).toEqual([]);
    expect(read('wget -O a.tgz -o log.txt https://example.com/a.tgz')!.outputs).toEqual(['a.tgz', 'log.txt']);
    expect(read('wget -P /opt/x https://example.com/a.tgz')!.outputDirs).toEqual(['/opt/x']);
    expect(read('curl --output-dir /opt/x -O https://example.com/a.tgz')!.outputDirs).toEqual(['/opt/x']);
  });

  it('does not take the value of an option for the URL, and reads --url as one', () => {
    const req = read('curl -H X-Token:abc --max-time 10 --url https://example.com/a')!;
    expect(requestUrls(req)).toEqual(['https://example.com/a']);
    expect(req.words.filter((w) => w.kind === 'operand').map((w) => w.word.text)).toEqual(['https://example.com/a']);
  });

  it('reads the socket the request is sent over', () => {
    expect(read('curl --unix-socket /var/run/docker.sock http://x/v1/info')!.socket).toBe('/var/run/docker.sock');
  });
});
