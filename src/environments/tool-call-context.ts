// Which run and tool call the code running now serves: set by the tool activity around a call, read by an
// environment when it starts a command, so a connection the command makes later can be attributed to it.
// Worker-only (AsyncLocalStorage).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ToolCallContext {
  workflowId?: string;
  callId?: string;
  /**
   * The files the approval gate read to reach this call's verdict (keys as it names them): a background process
   * started by the call holds them, and a later call that writes one asks (processes.ts, heldFiles).
   */
  judgedReads?: readonly string[];
  /**
   * Set while an execute_code program's tool request runs: the program as its approval showed it. A network
   * approval for what the inner call reaches names the program as well as the call.
   */
  program?: string;
}

const storage = new AsyncLocalStorage<ToolCallContext>();

/** Runs `fn` as part of the given tool call. */
export function withToolCall<T>(call: ToolCallContext, fn: () => T): T {
  return storage.run(call, fn);
}

/**
 * The tool call being served, if any. Read it where a call starts something (a command), never in a callback that
 * fires later: those may run in the context of whichever call happened to set them up.
 */
export function currentToolCall(): ToolCallContext | undefined {
  return storage.getStore();
}
