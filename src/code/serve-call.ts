// The worker's side of one execute_code program's tool requests: the allowed set, the call limit, the terminal's
// approval check, then the registry's one dispatch path. Worker-only.
import type { TetherConfig } from '../config/config.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolContext } from '../registry/types.js';
import { currentToolCall, withToolCall } from '../environments/tool-call-context.js';
import { refusalForCall } from './command-check.js';
import { resultValue, type RpcRequest } from './rpc.js';

interface ServeOptions {
  registry: ToolRegistry;
  /** Tool names the program may call. */
  allowed: ReadonlySet<string>;
  maxCalls: number;
  config: TetherConfig;
  ctx: ToolContext;
  /** The program as its approval showed it: a network approval for what a call reaches names it. */
  program: string;
}

interface CallServer {
  serve: (request: RpcRequest, signal: AbortSignal) => Promise<unknown>;
  /** Requests that reached a tool. */
  readonly dispatched: number;
}

export function callServer(o: ServeOptions): CallServer {
  let seen = 0;
  let dispatched = 0;
  const allowedList = [...o.allowed].join(', ') || 'none';
  // The run and call the program serves, read here where the execute_code call runs: requests arrive later, from
  // the program's output stream, and run as requests of this call and program.
  const call = { ...currentToolCall(), program: o.program };
  const serve = async (r: RpcRequest, signal: AbortSignal): Promise<unknown> => {
    seen += 1;
    if (!o.allowed.has(r.tool)) {
      return { error: `tool '${r.tool}' cannot be called from execute_code; allowed: ${allowedList}` };
    }
    if (seen > o.maxCalls) {
      return {
        error: `this program reached its limit of ${o.maxCalls} tool calls (code_execution.max_tool_calls); no more calls are run`,
      };
    }
    // Judged as the agent loop judges a direct call: what the tool says it would run (command, stdin, scripts, input).
    const refusal = await refusalForCall(o.registry, r.tool, r.args, o.ctx, o.config);
    if (refusal) return { error: refusal };
    dispatched += 1;
    // Progress stays the program's own; the inner call is cancelled with the program.
    const ctx: ToolContext = { ...o.ctx, progress: undefined, signal, environmentExpected: true };
    return resultValue(await withToolCall(call, () => o.registry.dispatch(r.tool, r.args, ctx)));
  };
  return {
    serve,
    get dispatched() {
      return dispatched;
    },
  };
}
