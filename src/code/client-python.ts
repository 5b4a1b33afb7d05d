// Generates `tether_tools.py`, the module an execute_code Python program imports to call tether tools. Pure. Worker-only.
import { argumentsOf, type CallableTool } from './callable-tools.js';
import { RPC_PREFIX } from './rpc.js';

const PY_KEYWORDS = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
  'match',
  'case',
  'type',
]);

/** A name usable as a Python parameter; leading underscores are the module's own. */
function safeName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(name) && !PY_KEYWORDS.has(name);
}

/** JSON string literals with non-ASCII escaped are valid Python string literals. */
function pyString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function toolFunction(t: CallableTool): string {
  const args = argumentsOf(t.parameters);
  const doc = `    ${pyString(t.purpose)}`;
  if (!safeName(t.name)) return '';
  if (!args.every((a) => safeName(a.name))) {
    return `def ${t.name}(**kwargs):\n${doc}\n    return _call(${pyString(t.name)}, kwargs)\n`;
  }
  const params =
    args.length === 0 ? '' : `*, ${args.map((a) => (a.required ? a.name : `${a.name}=_UNSET`)).join(', ')}`;
  const dict = `{${args.map((a) => `${pyString(a.name)}: ${a.name}`).join(', ')}}`;
  return `def ${t.name}(${params}):\n${doc}\n    return _call(${pyString(t.name)}, ${dict})\n`;
}

export function pythonClient(token: string, tools: readonly CallableTool[]): string {
  const names = tools.map((t) => t.name).filter(safeName);
  return `# tether_tools: calls tether tools from this program (generated for one execute_code call).
# Each function sends one request line on standard output and reads the answer from standard input; it returns
# the tool's JSON result (a dict; a refused or failed call is {"error": "..."}).
import json as _json
import sys as _sys

_MARK = ${pyString(`${RPC_PREFIX}${token} `)}
_UNSET = object()
_seq = 0
__all__ = ["call", ${names.map(pyString).join(', ')}]


def _call(tool, args):
    global _seq
    _seq += 1
    payload = {k: v for k, v in args.items() if v is not _UNSET}
    line = _MARK + _json.dumps({"id": _seq, "tool": tool, "args": payload}, ensure_ascii=True) + "\\n"
    for stream in (_sys.stdout, _sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    out = _sys.__stdout__
    out.write(line)
    out.flush()
    while True:
        answer = _sys.__stdin__.readline()
        if answer == "":
            raise RuntimeError("tether: the tool channel was closed")
        if not answer.strip():
            continue
        message = _json.loads(answer)
        if message.get("id") == _seq:
            return message.get("result")


def call(tool, args=None, **kwargs):
    "Calls any tool by name: call('read_file', path='x') or call('read_file', {'path': 'x'})."
    return _call(tool, dict(args or {}, **kwargs))


${tools.map(toolFunction).filter(Boolean).join('\n\n')}`;
}
