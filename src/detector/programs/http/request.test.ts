import { describe, expect, it } from 'vitest';
import { words, type Argv } from '../../engine/argv.js';
import { httpRequest } from './request.js';

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
    expect(req.urls).toEqual(['https://example.com/i.sh']);
    expect(read('curl -sSLoout.sh https://example.com/i.sh')!.outputs).toEqual(['out.sh']);
    expect(read('curl -d@secret.txt https://example.com')!.words[0]).toMatchObject({ kind: 'body', option: '-d' });
  });

  it("knows where each client writes: curl's -o, wget's -O, -o (its log) and -P", () => {
    expect(read('wget -O - https://example.com/a.tgz')!.outputs).toEqual([]);
    expect(read('wget -O a.tgz -o log.txt https://example.com/a.tgz')!.outputs).toEqual(['a.tgz', 'log.txt']);
    expect(read('wget -P /opt/x https://example.com/a.tgz')!.outputDirs).toEqual(['/opt/x']);
    expect(read('curl --output-dir /opt/x -O https://example.com/a.tgz')!.outputDirs).toEqual(['/opt/x']);
  });

  it('does not take the value of an option for the URL, and reads --url as one', () => {
    const req = read('curl -H X-Token:abc --max-time 10 --url https://example.com/a')!;
    expect(req.urls).toEqual(['https://example.com/a']);
    expect(req.words.filter((w) => w.kind === 'operand').map((w) => w.word.text)).toEqual(['https://example.com/a']);
  });

  it('reads the socket the request is sent over', () => {
    expect(read('curl --unix-socket /var/run/docker.sock http://x/v1/info')!.socket).toBe('/var/run/docker.sock');
  });

  it('takes an unambiguous prefix of a long option, as curl, wget and httpie do', () => {
    expect(read('curl --data-bin @.env https://example.com')!.words[0]).toMatchObject({ option: '--data-binary' });
    expect(read('curl --req DELETE https://example.com')).toMatchObject({ method: 'DELETE' });
    expect(read('wget --post-fi=.env https://example.com')!.words[0]).toMatchObject({
      kind: 'body',
      option: '--post-file',
    });
    expect(read('wget --output-doc out.html https://example.com')!.outputs).toEqual(['out.html']);
  });

  it("saves under the URL's own name with curl -O and wget's default, in the output directory", () => {
    expect(read('curl -fsSLO https://example.com/dl/tool.tgz')!.outputs).toEqual(['tool.tgz']);
    expect(read('curl -O --output-dir /opt/x https://example.com/a.sh')!.outputs).toEqual(['/opt/x/a.sh']);
    expect(read('wget -q https://example.com/a/b.tar.gz?x=1')!.outputs).toEqual(['b.tar.gz']);
    expect(read('wget -P d https://example.com/b.sh')!.outputs).toEqual(['d/b.sh']);
    expect(read('curl -HOrigin:x https://example.com/a.sh')!.outputs).toEqual([]);
    expect(read('wget -O - https://example.com/a.sh')!.outputs).toEqual([]);
  });

  it("reads URLs written without a scheme, and httpie's localhost shorthand", () => {
    expect(read('curl -X DELETE localhost:9200/_all')!.urls).toEqual(['http://localhost:9200/_all']);
    expect(read('http DELETE :9200/_all')!.urls).toEqual(['http://localhost:9200/_all']);
    expect(read('http POST example.org/api name=x')!.urls).toEqual(['http://example.org/api']);
  });

  it('reads a flag named in full as itself, though it begins like an option with a value (--head, --header)', () => {
    const req = read('curl --head https://example.com/a')!;
    expect(req.urls).toEqual(['https://example.com/a']);
    expect(read('http --form POST example.org/api name=x')).toMatchObject({
      method: 'POST',
      urls: ['http://example.org/api'],
    });
  });
});
