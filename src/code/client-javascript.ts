// Generates `tether_tools.mjs`, the module an execute_code JavaScript program imports to call tether tools. Pure. Worker-only.
import type { CallableTool } from './callable-tools.js';
import { RPC_PREFIX } from './rpc.js';

export function javascriptClient(token: string, tools: readonly CallableTool[]): string {
  const exports = tools
    .filter((t) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(t.name))
    .map(
      (t) =>
        `/** ${t.purpose.replace(/\*\//g, '* /')} */\nexport const ${t.name} = (args = {}) => call(${JSON.stringify(t.name)}, args);`,
    )
    .join('\n');
  return `// tether_tools: calls tether tools from this program (generated for one execute_code call).
// Each function sends one request line on standard output and resolves to the tool's JSON result read from
// standard input (an object; a refused or failed call is {error: "..."}).
const MARK = ${JSON.stringify(`${RPC_PREFIX}${token} `)};
let seq = 0;
let buffer = '';
let listening = false;
const waiting = new Map();

function onData(data) {
  buffer += data;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    const w = waiting.get(message.id);
    if (w) {
      waiting.delete(message.id);
      w.resolve(message.result);
    }
  }
  // Paused and unreferenced while nothing is awaited: a paused pipe alone still keeps the program alive.
  if (waiting.size === 0) {
    process.stdin.pause();
    process.stdin.unref?.();
  }
}

function onEnd() {
  for (const w of waiting.values()) w.reject(new Error('tether: the tool channel was closed'));
  waiting.clear();
}

/** Calls any tool by name: await call('read_file', { path: 'x' }). */
export function call(tool, args = {}) {
  if (!listening) {
    listening = true;
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', onData);
    process.stdin.on('end', onEnd);
  }
  seq += 1;
  const id = seq;
  const answer = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  process.stdin.ref?.();
  process.stdin.resume();
  process.stdout.write(MARK + JSON.stringify({ id, tool, args }) + '\\n');
  return answer;
}

${exports}
`;
}
