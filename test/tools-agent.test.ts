// An agent run (scripted model) that uses execute_code (Python and JavaScript programs calling tools) and the browser
// (headless Chromium against a page on loopback, by a name the egress policy allows and maps there), through the
// durable loop on the real dev server.
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { findBrowser } from '../src/browser/find-browser.js';
import { harness, type Harness } from './support/agent-harness.js';
import { startPageServer, type PageServer } from './support/page-server.js';
import { lastToolResults, startScriptedModel, type ChatRequest } from './support/scripted-model.js';

const FORM = `<!doctype html><html><head><title>Sign-up</title></head><body><h1>Sign up</h1>
<form onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'Welcome, ' + document.getElementById('who').value;">
<input id="who" name="who" placeholder="Your name"><button type="submit">Join</button></form><p id="out"></p></body></html>`;

let h: Harness;
let pages: PageServer;
const noBrowser =
  findBrowser(undefined) === undefined ? 'no Chromium on this machine (Debian package chromium)' : undefined;

beforeAll(async () => {
  pages = await startPageServer({ '/form': { headers: { 'content-type': 'text/html' }, body: FORM } });
  const egress = { allow: ['pages.example.test'], resolve: { 'pages.example.test': new URL(pages.origin).host } };
  h = await harness(parseConfig({ terminal: { local: { sandbox: { egress } } } }));
});
afterAll(async () => {
  await h.close();
  await pages.close();
});

/** The ref of the first snapshot line containing `pattern`, in the last tool result the model got. */
function refIn(req: ChatRequest, pattern: string): string {
  const result = JSON.parse(req.messages.at(-1)!.content!) as { snapshot?: string };
  const line = String(result.snapshot)
    .split('\n')
    .find((l) => l.includes(pattern));
  const ref = line && /\[(e\d+)\]$/.exec(line)?.[1];
  if (!ref) throw new Error(`no ref for ${pattern} in ${req.messages.at(-1)!.content!.slice(0, 2_000)}`);
  return ref;
}

it('runs programs that call tools, then fills in a form in the browser', async (ctx) => {
  if (noBrowser) return ctx.skip(noBrowser);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-tools-agent-')));
  const python = [
    'from tether_tools import write_file, terminal, read_file',
    'write_file(path="data/numbers.txt", content="3\\n4\\n5\\n")',
    `total = terminal(command="awk '{s+=$1} END {print s}' data/numbers.txt")["output"].strip()`,
    'print("sum", total, "lines", read_file(path="data/numbers.txt")["total_lines"])',
  ].join('\n');
  const javascript = [
    "import { search_files, read_file } from './tether_tools.mjs';",
    "const found = await search_files({ pattern: '5', path: 'data' });",
    "const file = await read_file({ path: 'data/numbers.txt' });",
    'console.log(JSON.stringify({ found: JSON.stringify(found).includes("numbers.txt"), lines: file.total_lines }));',
  ].join('\n');
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'execute_code', arguments: { language: 'python', code: python } }] },
    { toolCalls: [{ name: 'execute_code', arguments: { language: 'javascript', code: javascript } }] },
    { toolCalls: [{ name: 'browser_navigate', arguments: { url: 'http://pages.example.test/form' } }] },
    (req) => ({ toolCalls: [{ name: 'browser_type', arguments: { ref: refIn(req, 'input[text]'), text: 'Ada' } }] }),
    (req) => ({ toolCalls: [{ name: 'browser_click', arguments: { ref: refIn(req, 'button "Join"') } }] }),
    { toolCalls: [{ name: 'browser_screenshot', arguments: {} }] },
    { content: 'signed up' },
  ]);
  const result = await h.withWorker(model.url, () => h.run({ task: 'compute and sign up', cwd }));
  expect(model.errors).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', answer: 'signed up', turns: 7, toolCalls: 6 });
  const [py, js, nav, , clicked, shot] = lastToolResults(model) as Record<string, unknown>[];
  expect(py).toMatchObject({ exit_code: 0, output: 'sum 12 lines 3\n', tool_calls: 3 });
  expect(readFileSync(join(cwd, 'data/numbers.txt'), 'utf8')).toBe('3\n4\n5\n');
  expect(js).toMatchObject({ exit_code: 0, output: '{"found":true,"lines":3}\n', tool_calls: 2 });
  expect(nav).toMatchObject({ title: 'Sign-up' });
  expect(String(clicked!.snapshot)).toContain('Welcome, Ada');
  expect(existsSync(String(shot!.path))).toBe(true);
  // The model was offered the tools, and execute_code's description names the tools a program may call.
  const offered = model.requests[0]!.tools!.map((t) => t.function.name);
  expect(offered).toEqual(expect.arrayContaining(['execute_code', 'browser_navigate', 'browser_click', 'read_file']));
  await model.close();
}, 120_000);
