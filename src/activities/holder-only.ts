// The eager try of a call meant for the worker holding a task's environment (src/workflows/environment-route.ts):
// scheduled on the run's own queue, it may reach another worker, which must run nothing. Worker-only.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { RunToolInput, RunToolOutput } from '../common/activity-contract.js';
import { HOLDER_LOST } from '../common/task-queues.js';
import type { AssessCallInput, CallAssessment } from '../common/approval-types.js';

/** What a worker that does not hold the environment answers to a call: nothing ran. */
const NOT_RUN: RunToolOutput = { status: 'misrouted', result: '' };

/**
 * What it answers to a gate check: nothing was judged. The workflow never takes it for a verdict (it goes on to the
 * holder); were it ever read as one, it refuses the call rather than letting it through.
 */
const NOT_JUDGED: CallAssessment = {
  misrouted: true,
  command: '',
  dangerous: true,
  tier: 'hardline',
  findings: [
    { rule: 'misrouted', tier: 'hardline', description: 'not judged: reached a worker without the environment' },
  ],
  mode: 'manual',
  timeoutSeconds: 0,
  notify: false,
};

/** The running activity's attempt (1 outside an activity: the unit tests call these directly). */
function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/**
 * `fn` on the worker whose own queue is the input's `holder`; anywhere else (or with no holder named), `notHere`.
 * `mayHaveRun`: a later attempt of a call that must not run twice, reaching another worker, cannot say nothing ran
 * (its earlier attempt may have run on the holder): it fails as the holder's loss instead (HOLDER_LOST).
 */
function holderOnly<I extends { holder?: string }, O>(
  ownQueue: string | undefined,
  fn: (input: I) => Promise<O>,
  notHere: O,
  mayHaveRun = false,
): (input: I) => Promise<O> {
  return async (input) => {
    if (input.holder !== undefined && input.holder === ownQueue) return fn(input);
    if (mayHaveRun && attempt() > 1)
      throw ApplicationFailure.nonRetryable(
        `the worker holding the task's environment (${input.holder ?? 'unknown'}) was lost, or too busy to answer, during this call`,
        HOLDER_LOST,
      );
    return notHere;
  };
}

/**
 * The activities of the eager try, under their own names: a worker from before them does not have them and fails the
 * try with NotFoundError instead of running the call, and workflow code from before them cannot mistake their answer
 * for a result when it replays.
 */
export function holderActivities(
  ownQueue: string | undefined,
  acts: {
    runTool(input: RunToolInput): Promise<RunToolOutput>;
    runGatedTool(input: RunToolInput): Promise<RunToolOutput>;
    assessCall(input: AssessCallInput): Promise<CallAssessment>;
  },
): {
  runToolOnHolder(input: RunToolInput): Promise<RunToolOutput>;
  runGatedToolOnHolder(input: RunToolInput): Promise<RunToolOutput>;
  assessCallOnHolder(input: AssessCallInput): Promise<CallAssessment>;
} {
  return {
    runToolOnHolder: holderOnly(ownQueue, (i: RunToolInput) => acts.runTool(i), NOT_RUN, true),
    runGatedToolOnHolder: holderOnly(ownQueue, (i: RunToolInput) => acts.runGatedTool(i), NOT_RUN, true),
    assessCallOnHolder: holderOnly(ownQueue, (i: AssessCallInput) => acts.assessCall(i), NOT_JUDGED),
  };
}
