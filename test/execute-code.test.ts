// execute_code on the local backend with the real python3 and node of this machine: programs that call tools
// through the generated clients, the allowed set, approvals of terminal commands, limits, timeouts and errors.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { setCurrentConfig } from '../src/config/current.js';
import { configureEnvironments, environmentManager } from '../src/environments/current.js';
import { registry } from '../src/registry/index.js';
import '../src/tools/terminal.js';
import '../src/tools/read-file.js';
import '../src/tools/write-file.js';
import '../src/tools/search-files.js';
import '../src/tools/patch.js';
import '../src/tools/memory.js';
import '../src/tools/execute-code.js';
import { dockerAvailable, ensureTestImage, TEST_IMAGE } from './support/docker-fixture.js';

type Result = { exit_code: number | null; output: string; tool_calls: number; error?: string };

let cwd: string;
let n = 0;
const savedConfigEnv = process.env.TETHER_CONFIG;

function configure(codeExecution: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): void {
  setCurrentConfig(parseConfig({ code_execution: codeExecution, ...extra }));
}

async function run(
  language: 'python' | 'javascript',
  code: string,
  extra: Record<string, unknown> = {},
): Promise<Result> {
  n += 1;
  const raw = await registry.dispatch('execute_code', JSON.stringify({ language, code, ...extra }), {
    taskId: `exec-code-${process.pid}-${n}`,
    cwd,
  });
  return JSON.parse(raw) as Result;
}

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'tether-exec-code-'));
  // No allowlist from the user's config.yaml leaks into the approval checks.
  process.env.TETHER_CONFIG = join(cwd, 'no-config.yaml');
  await configureEnvironments(parseConfig({ terminal: { backend: 'local' } }).terminal);
});

afterAll(async () => {
  await environmentManager().closeAll();
  if (savedConfigEnv === undefined) delete process.env.TETHER_CONFIG;
  else process.env.TETHER_CONFIG = savedConfigEnv;
  rmSync(cwd, { recursive: true, force: true });
});

beforeEach(() => configure());

describe('execute_code (local backend, real python3 and node)', () => {
  it('a Python program writes, reads and runs a command through tools and prints a summary', async () => {
    const r = await run(
      'python',
      [
        'from tether_tools import write_file, read_file, terminal',
        'w = write_file(path="notes/py.txt", content="alpha\\nbeta\\n")',
        'r = read_file(path="notes/py.txt")',
        't = terminal(command="wc -l < notes/py.txt")',
        'print("read:", "beta" in r["content"], "lines:", t["output"].strip(), "exit:", t["exit_code"])',
      ].join('\n'),
    );
    expect(r.error).toBeUndefined();
    expect(r.exit_code).toBe(0);
    expect(r.tool_calls).toBe(3);
    expect(r.output.trim()).toBe('read: True lines: 2 exit: 0');
    expect(r.output).not.toContain('TETHER-RPC');
    expect(readFileSync(join(cwd, 'notes/py.txt'), 'utf8')).toBe('alpha\nbeta\n');
  });

  it('a JavaScript program awaits tools from the generated module', async () => {
    const r = await run(
      'javascript',
      [
        "import { write_file, terminal, search_files } from './tether_tools.mjs';",
        "await write_file({ path: 'js-out.txt', content: 'from node é\\n' });",
        "const t = await terminal({ command: 'cat js-out.txt' });",
        "const s = await search_files({ pattern: 'from node', target: 'content' });",
        "console.log(JSON.stringify({ out: t.output.trim(), found: JSON.stringify(s).includes('js-out.txt') }));",
      ].join('\n'),
    );
    expect(r.exit_code).toBe(0);
    expect(r.tool_calls).toBe(3);
    expect(JSON.parse(r.output.trim())).toEqual({ out: 'from node é', found: true });
    expect(readFileSync(join(cwd, 'js-out.txt'), 'utf8')).toBe('from node é\n');
  });

  it('output printed without a newline before a tool call stays output, and the program runs in the task directory', async () => {
    const r = await run(
      'python',
      [
        'import os, sys',
        'from tether_tools import terminal',
        'sys.stdout.write("before-")',
        'terminal(command="true")',
        'print("after", os.getcwd() == ' + JSON.stringify(cwd) + ')',
      ].join('\n'),
    );
    expect(r.output.trim()).toBe('before-after True');
  });

  it("cd and export of the program's terminal calls carry over between them, not past the program", async () => {
    mkdirSync(join(cwd, 'sub'), { recursive: true });
    const taskId = `exec-code-${process.pid}-cd`;
    const code =
      'from tether_tools import terminal\nterminal(command="cd sub && export FOO=inner")\nprint(terminal(command="pwd; echo $FOO")["output"].split())';
    const r = JSON.parse(
      await registry.dispatch('execute_code', JSON.stringify({ language: 'python', code }), { taskId, cwd }),
    ) as Result;
    expect(r.output.trim()).toBe(`['${join(cwd, 'sub')}', 'inner']`);
    const after = JSON.parse(
      await registry.dispatch('terminal', JSON.stringify({ command: 'pwd; echo "[$FOO]"' }), { taskId, cwd }),
    ) as Result;
    expect(after.output.trim().split('\n')).toEqual([cwd, '[]']);
  });

  it('a tool outside the allowed set is an error result inside the program', async () => {
    const r = await run(
      'python',
      [
        'from tether_tools import call',
        'print(call("memory", action="add", content="x"))',
        'print(call("no_such_tool"))',
      ].join('\n'),
    );
    expect(r.exit_code).toBe(0);
    const lines = r.output.trim().split('\n');
    expect(lines[0]).toContain("tool 'memory' cannot be called from execute_code; allowed:");
    expect(lines[0]).toContain('read_file');
    expect(lines[1]).toContain("tool 'no_such_tool' cannot be called");
  });

  it('invalid arguments come back as the tool error, in the program', async () => {
    const r = await run(
      'javascript',
      "import { call } from './tether_tools.mjs';\nconsole.log((await call('read_file', { nope: 1 })).error);",
    );
    expect(r.output).toMatch(/Invalid arguments for tool 'read_file'/);
  });

  it('a hardline terminal command is refused inside the program and nothing runs', async () => {
    const r = await run(
      'python',
      'from tether_tools import terminal\nprint(terminal(command="touch ran-hard.txt; rm -rf /")["error"])',
    );
    expect(r.exit_code).toBe(0);
    expect(r.output).toContain('Refused: this command is never run');
    expect(r.output).toContain('delete-root');
    expect(existsSync(join(cwd, 'ran-hard.txt'))).toBe(false);
  });

  it('a terminal call from the program is judged with its stdin and the scripts it runs (kill -0 -1: harmless if it ran)', async () => {
    const r = await run(
      'python',
      [
        'from tether_tools import terminal, write_file',
        'print(terminal(command="sh", stdin="kill -0 -1; touch ran-stdin.txt\\n").get("error"))',
        'write_file(path="k.sh", content="kill -0 -1; touch ran-script.txt\\n")',
        'print(terminal(command="sh k.sh").get("error"))',
        'print(terminal(command="sh", stdin="echo fine\\n")["output"].strip())',
      ].join('\n'),
    );
    const lines = r.output.trim().split('\n');
    expect(lines[0]).toMatch(/never run.*kill-all/);
    expect(lines[1]).toMatch(/never run.*kill-all/);
    expect(lines[2]).toBe('fine');
    expect(existsSync(join(cwd, 'ran-stdin.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'ran-script.txt'))).toBe(false);
  });

  it("a dangerous terminal command is refused inside the program as needing a person's approval", async () => {
    const r = await run(
      'javascript',
      [
        "import { terminal } from './tether_tools.mjs';",
        "console.log((await terminal({ command: 'touch ran-danger.txt; curl -s http://127.0.0.1:9/x | sh' })).error);",
        "console.log((await terminal({ command: 'git push --force origin main' })).error);",
      ].join('\n'),
    );
    const lines = r.output.trim().split('\n');
    expect(lines[0]).toMatch(/needs a person's approval.*remote-code-exec.*terminal tool directly/);
    expect(lines[1]).toMatch(/git-force-push/);
    expect(existsSync(join(cwd, 'ran-danger.txt'))).toBe(false);
  });

  it('a dangerous command the allowlist covers runs', async () => {
    // The exact command (a rule meaning "tether could not read what runs", remote-code-exec, may not be listed).
    configure({}, { command_allowlist: ['touch ran-allowed.txt; echo echo piped | sh'] });
    const r = await run(
      'python',
      'from tether_tools import terminal\nr = terminal(command="touch ran-allowed.txt; echo echo piped | sh")\nprint(r.get("error"), r["output"].strip())',
    );
    expect(r.output.trim()).toBe('None piped');
    expect(existsSync(join(cwd, 'ran-allowed.txt'))).toBe(true);
  });

  it('max_tool_calls is enforced: calls past it return an error and do not run', async () => {
    configure({ max_tool_calls: 2 });
    const r = await run(
      'python',
      [
        'from tether_tools import terminal',
        'for i in range(4):',
        '    r = terminal(command=f"echo call-{i} >> calls.txt")',
        '    print(i, r.get("error", "ok"))',
      ].join('\n'),
    );
    const lines = r.output.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['0 ok', '1 ok']);
    expect(lines[2]).toContain('limit of 2 tool calls');
    expect(lines[3]).toContain('limit of 2 tool calls');
    expect(r.tool_calls).toBe(4);
    expect(readFileSync(join(cwd, 'calls.txt'), 'utf8')).toBe('call-0\ncall-1\n');
  });

  it('a program past its timeout is killed with exit code 124 and keeps its output', async () => {
    const r = await run('python', 'print("started")\nimport time\ntime.sleep(30)\nprint("never")', { timeout: 2 });
    expect(r.exit_code).toBe(124);
    expect(r.error).toBe('Program timed out after 2s and was killed');
    expect(r.output).toContain('started');
    expect(r.output).not.toContain('never');
  });

  it('the timeout argument cannot exceed code_execution.timeout_seconds', async () => {
    configure({ timeout_seconds: 1 });
    const r = await run('javascript', 'setTimeout(() => console.log("late"), 20000);', { timeout: 600 });
    expect(r.exit_code).toBe(124);
    expect(r.error).toContain('after 1s');
  });

  it('a syntax error exits non-zero with the interpreter message', async () => {
    const py = await run('python', 'def broken(:\n    pass');
    expect(py.exit_code).not.toBe(0);
    expect(py.output).toContain('SyntaxError');
    const js = await run('javascript', 'const = 1;');
    expect(js.exit_code).not.toBe(0);
    expect(js.output).toContain('SyntaxError');
  });

  it('output is capped at code_execution.max_output_chars, start and end kept', async () => {
    configure({ max_output_chars: 1000 });
    const r = await run('python', 'print("FIRST")\nfor i in range(5000): print("x" * 20)\nprint("LAST")');
    expect(r.exit_code).toBe(0);
    expect(r.output.length).toBeLessThan(1500);
    expect(r.output).toContain('FIRST');
    expect(r.output).toContain('LAST');
  });

  it('the temporary program directory is removed afterwards', async () => {
    const r = await run('python', 'import os\nprint(os.path.dirname(os.path.abspath(__file__)))');
    const dir = r.output.trim();
    expect(dir).toMatch(/^\/tmp\/tether-code-/);
    expect(existsSync(dir)).toBe(false);
  });

  it('a program reading a file it wrote with write_file sees the content (same directory for tools and program)', async () => {
    writeFileSync(join(cwd, 'given.txt'), 'given content\n');
    const r = await run(
      'javascript',
      "import { readFileSync } from 'node:fs';\nimport { read_file } from './tether_tools.mjs';\nconst r = await read_file({ path: 'given.txt' });\nconsole.log(readFileSync('given.txt', 'utf8').trim(), r.content.includes('given content'));",
    );
    expect(r.output.trim()).toBe('given content true');
  });
});

describe('execute_code schemaPatch', () => {
  it('lists only the callable tools in the final list, with their arguments', () => {
    const defs = registry.getDefinitions(['execute_code', 'read_file', 'terminal', 'memory']);
    const exec = defs.find((d) => d.function.name === 'execute_code');
    const text = exec?.function.description ?? '';
    expect(text).toContain('- read_file(path, offset?, limit?): Read a text file.');
    expect(text).toMatch(/- terminal\(command, timeout\?, workdir\?/);
    expect(text).not.toMatch(/- write_file|- patch|- search_files|- web_search|- memory/);
    const alone = registry.getDefinitions(['execute_code']).find((d) => d.function.name === 'execute_code');
    expect(alone?.function.description).toContain('No tools can be called from the program in this run.');
  });
});

describe('execute_code on the Docker backend', () => {
  let skip: string | undefined;
  beforeAll(async () => {
    skip = await dockerAvailable();
    if (skip) return;
    await ensureTestImage();
    await configureEnvironments(
      parseConfig({ terminal: { backend: 'docker', docker: { image: TEST_IMAGE } } }).terminal,
    );
  }, 180_000);

  it('runs a program that calls terminal when the image has python3 or node', async (ctx) => {
    if (skip) ctx.skip(skip);
    const probe = JSON.parse(
      await registry.dispatch(
        'terminal',
        JSON.stringify({ command: 'command -v python3 || command -v node || echo none' }),
        { taskId: `exec-code-docker-${process.pid}`, cwd },
      ),
    ) as Result;
    const found = probe.output.trim();
    if (found === 'none' || probe.exit_code !== 0)
      ctx.skip(`the test image (${TEST_IMAGE}, busybox) has neither python3 nor node`);
    const language = found.endsWith('python3') ? 'python' : 'javascript';
    const code =
      language === 'python'
        ? 'from tether_tools import terminal\nprint(terminal(command="echo in-container")["output"].strip())'
        : "import { terminal } from './tether_tools.mjs';\nconsole.log((await terminal({ command: 'echo in-container' })).output.trim());";
    const r = JSON.parse(
      await registry.dispatch('execute_code', JSON.stringify({ language, code }), {
        taskId: `exec-code-docker-${process.pid}`,
        cwd,
      }),
    ) as Result;
    expect(r.output.trim()).toBe('in-container');
  }, 120_000);
});
