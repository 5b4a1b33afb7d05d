// The run's task text for the hooks and tools that read it, now that tool inputs name it by digest: from a small
// per-worker cache by run, else from the run's conversation this worker holds (its first user message is the task),
// else by asking the workflow (a query). Worker-only.
import { digestText } from '../common/conversation-digest.js';
import type { Logger } from '../logging/logger.js';
import type { Hooks } from '../registry/hooks.js';
import type { ToolRegistry } from '../registry/registry.js';
import { BoundedMap } from './bounded-map.js';

/** Runs whose task text is held; a run's text is small next to its conversation, but runs are many. */
const MAX_RUNS = 200;
/**
 * After the workflow did not answer, its run's calls go on without the text for this long instead of each waiting
 * out the query again (a run whose workflow cannot be queried would otherwise add 15 s to every call).
 */
const ASK_AGAIN_AFTER_MS = 60_000;

export interface TaskTextSources {
  /** The first user message of the run's conversation as this worker holds it, if it does. */
  firstUserMessage(run: string): string | undefined;
  /** The workflow's own answer (the taskText query, see queryOwnWorkflow); undefined when it cannot be had. */
  ask(): Promise<string | undefined>;
}

/** Whether the call has a reader of the task text: any tool-call hook, or a tool registered as reading it. */
export function readsTask(name: string, registry: ToolRegistry, hooks: Hooks): boolean {
  const { pre_tool_call, post_tool_call, transform_tool_result } = hooks.set;
  if (pre_tool_call.length + post_tool_call.length + transform_tool_result.length > 0) return true;
  return registry.get(name)?.readsUserTask === true;
}

export class TaskTexts {
  /** By workflow id; the least recently used run goes first. */
  private readonly held = new BoundedMap<string, { ref: string; text: string }>({ maxEntries: MAX_RUNS });
  /**
   * `${run} ${ref}` → when the workflow last failed to answer. A repeated failure updates its time in place, so the
   * first failures go first.
   */
  private readonly unanswered = new BoundedMap<string, { at: number }>({ maxEntries: MAX_RUNS });

  constructor(
    private readonly log: Logger,
    private readonly sources: TaskTextSources,
    private readonly now: () => number = Date.now,
  ) {}

  /** Run `run`'s task text whose digest is `ref`, or undefined (with one warn line) when it cannot be had. */
  async resolve(run: string, ref: string): Promise<string | undefined> {
    const held = this.held.peek(run);
    if (held?.ref === ref) {
      this.held.set(run, held);
      return held.text;
    }
    // Each source is checked against the digest: a conversation may start from other messages than the task.
    let text = this.sources.firstUserMessage(run);
    const key = `${run} ${ref}`;
    const failed = this.unanswered.peek(key);
    const askNow = failed === undefined || this.now() - failed.at >= ASK_AGAIN_AFTER_MS;
    if ((text === undefined || digestText(text) !== ref) && askNow) text = await this.sources.ask();
    if (text === undefined || digestText(text) !== ref) {
      if (askNow) {
        // Looked up again: another call may have changed the entry while this one waited for the workflow.
        const entry = this.unanswered.peek(key);
        if (entry) entry.at = this.now();
        else this.unanswered.set(key, { at: this.now() });
      }
      this.log.warn(
        { workflowId: run, task: ref },
        askNow
          ? "the run's task text could not be had (its workflow did not answer the taskText query): hooks and tools see none"
          : "the run's task text could not be had (its workflow did not answer the taskText query in the last minute): hooks and tools see none",
      );
      return undefined;
    }
    this.unanswered.delete(key);
    this.held.set(run, { ref, text });
    return text;
  }
}
