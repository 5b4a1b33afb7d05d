// The `execute_code` tool: a Python or JavaScript program in the task's terminal environment that can call tether
// tools through a generated client, so one call can do many steps. Worker-only.
import { z } from 'zod';
import { callableTools, CALLABLE_TOOLS, toolLines } from '../code/callable-tools.js';
import { runProgram } from '../code/run-program.js';
import { callServer } from '../code/serve-call.js';
import { currentConfig } from '../config/current.js';
import { registry } from '../registry/index.js';
import { environmentAvailable, inTaskEnvironment, modelOutput } from './task-environment.js';

/** The schema's upper bound; code_execution.timeout_seconds (default 300) is the one in force. */
const MAX_TIMEOUT_SECONDS = 3_600;
const PROGRESS_TAIL_CHARS = 2_000;
const TOOLS_HEADING = '\n\nTools the program can call:\n';

const DESCRIPTION =
  "Run a Python or JavaScript program in the task's environment (where terminal commands run, same working directory) " +
  'and return its exit code and combined stdout/stderr. The program can call tools, so one execute_code call can do ' +
  'many steps: Python `from tether_tools import read_file, terminal` then `read_file(path="x")` (keyword arguments, ' +
  'returns a dict); JavaScript (an ES module) `import { read_file } from "./tether_tools.mjs"` then ' +
  '`await read_file({ path: "x" })`. A failed or refused tool call returns {"error": ...} rather than raising. ' +
  "Standard input is the tool channel: the program cannot read its own stdin. `cd` and `export` of the program's terminal calls " +
  'carry over between them but not past the program. The program is read before it runs: a call that starts a ' +
  'process, deletes a tree or signals a process is judged like a terminal command, and a program that needs approval ' +
  "waits for it (one whose command is computed at run time asks). Terminal commands that need a person's " +
  'approval are refused inside the program (run them with the terminal tool). Limits: code_execution.timeout_seconds ' +
  '(the timeout argument may only lower it; exit code 124 when killed), max_tool_calls tool calls per program, ' +
  'max_output_chars of output.';

/** The program as a person is shown it: in its approval, and in the network approvals of its tool requests. */
const shownProgram = (language: string, code: string): string => `${language} program:\n${code}`;

registry.register({
  name: 'execute_code',
  toolset: 'code_execution',
  emoji: '🐍',
  // Checking availability here would run at import; schemaPatch writes the available ones into the model's copy.
  description: `${DESCRIPTION}\n\nTools the program can call, those of them available: ${CALLABLE_TOOLS.join(', ')}.`,
  schema: z.object({
    language: z
      .enum(['python', 'javascript'])
      .describe('python (run with python3) or javascript (an ES module run with node)'),
    code: z.string().min(1).describe('The program'),
    timeout: z
      .number()
      .int()
      .positive()
      .max(MAX_TIMEOUT_SECONDS)
      .optional()
      .describe(
        'Seconds before the program is killed (default and maximum: code_execution.timeout_seconds, 300 unless configured)',
      ),
  }),
  sideEffects: 'changes-world',
  parallelSafe: false,
  environment: true,
  checkFn: environmentAvailable,
  isAsync: true,
  timeoutSeconds: MAX_TIMEOUT_SECONDS + 120,
  // The program is read with its language's grammar: every call that spawns, deletes or signals is judged.
  gate: ({ language, code }) => ({
    text: String(code),
    language: String(language),
    shown: shownProgram(String(language), String(code)),
  }),
  // The registration-time description listed what existed then; the model's list decides what it is told now.
  schemaPatch: (definition, finalNames) => {
    const tools = callableTools(registry, finalNames);
    const lines =
      tools.length > 0
        ? `${TOOLS_HEADING}${toolLines(tools)}`
        : '\n\nNo tools can be called from the program in this run.';
    return { ...definition, function: { ...definition.function, description: `${DESCRIPTION}${lines}` } };
  },
  handler: async ({ language, code, timeout }, ctx) => {
    const config = currentConfig();
    const settings = config.code_execution;
    const seconds = Math.min(timeout ?? settings.timeout_seconds, settings.timeout_seconds);
    return inTaskEnvironment(ctx, async ({ env }) => {
      if (!env.transport.capabilities.streamsStdin) {
        return {
          error: `execute_code needs a terminal backend that streams standard input to a running command; '${env.backend}' does not`,
        };
      }
      const tools = callableTools(registry);
      const server = callServer({
        registry,
        allowed: new Set(tools.map((t) => t.name)),
        maxCalls: settings.max_tool_calls,
        config,
        ctx,
        program: shownProgram(language, code),
      });
      let tail = '';
      const r = await runProgram(env, {
        language,
        code,
        timeoutSeconds: seconds,
        python: settings.python,
        node: settings.node,
        tools,
        serve: server.serve,
        keepBytes: Math.max(64 * 1024, settings.max_output_chars * 4),
        signal: ctx.signal,
        onOutput: (text) => {
          tail = (tail + text).slice(-PROGRESS_TAIL_CHARS);
          ctx.progress?.({ output_tail: tail });
        },
      });
      const result: Record<string, unknown> = {
        exit_code: r.exitCode,
        output: modelOutput(r.output, settings.max_output_chars),
        tool_calls: r.requests,
      };
      if (r.timedOut) result.error = `Program timed out after ${seconds}s and was killed`;
      if (r.cancelled) result.error = 'Program was cancelled and killed';
      if (r.enforced) result.sandbox = r.enforced.join('; ');
      return result;
    });
  },
});
