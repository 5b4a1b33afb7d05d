// Routes where bash evaluates a value again as code (arithmetic, subscripts, prompt strings, callbacks) and where
// line editing or history changes what an interactive shell runs: each member asks, each benign look-alike does not.
import { beforeAll, describe, expect, it } from 'vitest';
import { judgeSubject } from '../../approval/assess.js';
import { detect } from './detect.js';
import { lineEditing } from './line-editing.js';
import { loadBashParser, type ParseBash } from './parser.js';

const CWD = '/work/proj';
const P = 'touch /work/proj/m; kubectl delete pod demo';
let parse: ParseBash;
beforeAll(async () => {
  parse = await loadBashParser();
});

const rulesOf = (command: string): string[] => detect(parse, command, { cwd: CWD }).findings.map((f) => f.rule);

/** [command, the rule it asks with] */
const EVALUATED: [string, string][] = [
  [`bash -c 'x="\\$(${P})"; echo \${x@P}'`, 'evaluated-value'],
  [`bash -c 'declare -a a; i="a[\\$(${P})]"; echo $((i))'`, 'evaluated-value'],
  [`bash -c 'printf -v "a[\\$(${P})]" x'`, 'evaluated-value'],
  [`bash -c 'x="a[\\$(${P})]"; [[ $x -eq 0 ]]'`, 'evaluated-value'],
  [`bash -c 'x="a[\\$(${P})]"; echo \${!x}'`, 'evaluated-value'],
  [`bash -c 'PS4="\\$(${P})"; set -x; :'`, 'evaluated-value'],
  [`printf 'x\\n' > l; bash -c 'mapfile -C "${P} #" -c 1 v < l'`, 'kubectl-delete'],
  [`x='a[$(${P})]'; (( x ))`, 'evaluated-value'],
  [`x='a[$(${P})]'; echo $[x]`, 'evaluated-value'],
  [`x='a[$(${P})]'; let x`, 'evaluated-value'],
  [`let 'a[$(${P})]'`, 'evaluated-value'],
  [`x='a[$(${P})]'; declare -i y=x`, 'evaluated-value'],
  [`x='a[$(${P})]'; declare -i y; y=$x`, 'evaluated-value'],
  [`x='a[$(${P})]'; [[ x -lt 1 ]]`, 'evaluated-value'],
  [`x='a[$(${P})]'; for ((i=0; i<x; i++)); do :; done`, 'evaluated-value'],
  [`x='a[$(${P})]'; echo \${a[$x]}`, 'evaluated-value'],
  [`x='a[$(${P})]'; echo \${a[x]}`, 'evaluated-value'],
  [`x='a[$(${P})]'; a[$x]=1`, 'evaluated-value'],
  [`x='a[$(${P})]'; a=([x]=1)`, 'evaluated-value'],
  [`y='a[$(${P})]'; x=y; echo $((x))`, 'evaluated-value'],
  [`x='$(${P})'; unset "a[$x]"`, 'evaluated-value'],
  [`unset 'a[$(${P})]'`, 'evaluated-value'],
  [`read 'a[$(${P})]' < f`, 'evaluated-value'],
  [`read -a 'a[$(${P})]' < f`, 'evaluated-value'],
  [`declare 'a[$(${P})]=1'`, 'evaluated-value'],
  [`f() { local 'a[$(${P})]=1'; }; f`, 'evaluated-value'],
  [`declare -n r='a[$(${P})]'; echo $r`, 'evaluated-value'],
  [`wait -p 'a[$(${P})]' -n`, 'evaluated-value'],
  [`test -v 'a[$(${P})]'`, 'evaluated-value'],
  [`[[ -v 'a[$(${P})]' ]]`, 'evaluated-value'],
  [`n=$(cat n.txt); echo $((n + 1))`, 'evaluated-value'],
  [`read n < n.txt; (( n > 2 ))`, 'evaluated-value'],
  [`v=$(cat f); echo \${!v}`, 'evaluated-value'],
  [`name=$(cat f); printf -v "$name" x`, 'evaluated-value'],
  [`PS0='$(${P})'`, 'evaluated-value'],
  [`export PS1='$(${P}) $ '`, 'evaluated-value'],
  [`PS4="$(cat f)" bash -xc :`, 'evaluated-value'],
  [`BASH_ENV='$(${P})' bash -c :`, 'evaluated-value'],
  [`env ENV='$(${P})' sh -i`, 'evaluated-value'],
  [`x='$(${P})'; y=$x; echo \${y@P}`, 'evaluated-value'],
  [`readarray -C "$cb" -c 1 v < l`, 'dynamic-command'],
  [`complete -C '${P}' foo`, 'kubectl-delete'],
  [`compgen -C '${P}' x`, 'kubectl-delete'],
  [`bind -x '"\\C-x": ${P}'`, 'kubectl-delete'],
  [`bind '"\\C-a": "${P}\\n"'`, 'line-editing'],
  [`trap "$x" EXIT`, 'dynamic-command'],
  [`set -o history; history -s '${P}'; fc -s`, 'dynamic-command'],
  [`enable -f ./x.so x`, 'dynamic-command'],
];

const INERT: string[] = [
  'echo $((i+1))',
  'i=3; echo $((i+1))',
  'n=$(wc -l < f); echo $((n + 1))',
  'count=0; count=$((count+1)); echo $count',
  'for ((i=0; i<10; i++)); do echo $i; done',
  'for i in 1 2 3; do echo $((i*2)); done',
  'x=5; y=x; echo $((y))',
  'declare -i n=5; n=n+1',
  'a=(1 2 3); echo ${a[1]} ${#a[@]} ${a[@]:1:2}',
  's=hello; echo ${s:1:2}',
  '[[ $x -eq 0 ]] && echo zero',
  '[[ -v HOME ]] && echo set',
  'declare -A m; m[key]=v; echo ${m[key]}',
  'printf -v out \'%s\' "$x"',
  "PS1='\\u@\\h '",
  "PS4='+ ${BASH_SOURCE}:${LINENO}: '",
  'set -x',
  'mapfile -t lines < f',
  'for v in A B; do echo ${!v}; done',
  'x=\'$(date)\'; echo "$x" ${x@Q}',
  'tmp=$(mktemp); trap "rm -f $tmp" EXIT',
  'local x=$(date)',
  'bind -p',
  'fc -l',
  'complete -F _foo foo',
];

describe('values bash evaluates again as code', () => {
  it.each(EVALUATED)('asks: %s', (command, rule) => {
    expect(rulesOf(command)).toContain(rule);
  });

  it.each(INERT)('does not ask: %s', (command) => {
    expect(rulesOf(command)).toEqual([]);
  });

  it('judges code it can see in the value: a hardline command stays hardline', () => {
    expect(detect(parse, `x='$(kill -9 -1)'; echo \${x@P}`, { cwd: CWD }).tier).toBe('hardline');
  });
});

/** [what the interactive shell is given, typed on a terminal] */
const TYPED: [string, boolean][] = [
  ['!!:1-$\n', true],
  ['#touch m; kubectl delete pod demo\u0001\u0004\n', true],
  ['^echo ^\n', true],
  ['echo x\u001b[A\n', true],
  ['rm -f x\u007f\u007fy\n', true],
  ['echo "!-2"\n', true],
  ['!!\n', false],
];
const PLAIN_TYPED = [
  'ls -la\n',
  'if ! test -f x; then echo "hi!"; fi\n',
  "echo 'wow!x'\n",
  '[ "$a" != b ] && echo ok\n',
];

describe('input typed into an interactive shell', () => {
  it.each(TYPED)('asks: %j (terminal %s)', async (stdin, terminal) => {
    const subject = { text: 'bash --norc -i', stdin, inputOnly: true, ...(terminal ? { terminal } : {}) };
    const { verdict } = await judgeSubject(subject, CWD);
    expect(verdict.findings.map((f) => f.rule)).toContain('line-editing');
  });

  it.each(PLAIN_TYPED)('does not ask: %j', async (stdin) => {
    const { verdict } = await judgeSubject({ text: 'bash --norc -i', stdin, inputOnly: true, terminal: true }, CWD);
    expect(verdict.findings).toEqual([]);
  });

  it('judges a program on a terminal by its control keys, and a shell without -i or a terminal not at all', async () => {
    const python = await judgeSubject({ text: 'python3', stdin: 'print(1)\u0015\n', terminal: true }, CWD);
    expect(python.verdict.findings.map((f) => f.rule)).toContain('line-editing');
    expect(rulesOf('echo x | bash')).toEqual([]);
    expect(lineEditing('echo "!x"')).toMatch(/history/);
    expect(lineEditing("echo '!x'")).toBeUndefined();
  });
});
