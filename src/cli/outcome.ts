// How a followed run's end is printed (`tether run`, `tether attach`): the answer, a summary line, the exit code. Worker-only.
import type { FollowOutcome } from '../decisions/follow.js';

const EXIT_BY_STATUS: Record<string, number> = {
  completed: 0,
  limit_reached: 3,
  failed: 1,
  cancelled: 130,
  running: 0,
};

export function printOutcome(workflowId: string, outcome: FollowOutcome, json: boolean): void {
  if (json) {
    const r = outcome.result;
    const out = {
      workflowId,
      status: outcome.status,
      answer: r?.answer ?? null,
      turns: r?.turns ?? null,
      toolCalls: r?.toolCalls ?? null,
    };
    process.stdout.write(`${JSON.stringify(outcome.error ? { ...out, error: outcome.error } : out)}\n`);
  } else if (outcome.detached) {
    process.stderr.write(`Stopped following; the run goes on. Follow it again with: tether attach ${workflowId}\n`);
  } else if (outcome.result) {
    const r = outcome.result;
    process.stdout.write(`${r.answer}\n`);
    const mark = r.status === 'completed' ? '✓' : '■';
    process.stderr.write(
      `${mark} ${r.status} · ${r.turns} turns · ${r.toolCalls} tool calls · ${r.usage.totalTokens} tokens · ${workflowId}\n`,
    );
  } else {
    process.stderr.write(`✗ ${outcome.status}: ${outcome.error ?? ''}\n`);
  }
  process.exitCode = outcome.detached ? 130 : (EXIT_BY_STATUS[outcome.status] ?? 1);
}
