// The names of the agent workflow's queries, signals and updates, for the workflow that handles them and the worker
// and client code that sends them: one definition, so the two sides cannot drift apart. Workflow-safe.

/** The run's task text, for a tool call with a hook or tool that reads it (src/workflows/task-text.ts). */
export const TASK_TEXT_QUERY = 'taskText';
/** The model request in flight, whole, for a worker that missed its cache (src/workflows/model-input.ts). */
export const MODEL_REQUEST_QUERY = 'modelRequest';
/** The run's live state (`tether status`, `attach`, the ACP session). */
export const STATE_QUERY = 'state';
/** A user instruction for a running agent, taken at its next turn (`tether say`, a later ACP prompt). */
export const MESSAGE_SIGNAL = 'message';
/**
 * One turn of a conversation (an ACP prompt), sent as update-with-start: it starts the run when none runs under the
 * session's id, or reaches the running one, with no check-then-start race; the answer says which answer to wait for.
 */
export const CONVERSATION_TURN_UPDATE = 'conversationTurn';
/** The answer to the agent's clarify question (`tether answer`). */
export const ANSWER_SIGNAL = 'answer';
/** An approval decision, durable while no worker runs (src/decisions/decide.ts). */
export const APPROVAL_SIGNAL = 'approval';
/** An approval decision whose caller learns whether it applied (src/decisions/decide.ts). */
export const DECIDE_APPROVAL_UPDATE = 'decideApproval';
/** A sandboxed command's connection to a host no policy decided: the run asks a person (src/workflows/egress-approvals.ts). */
export const EGRESS_UPDATE = 'egress';
/** A host a run's command reached or was refused without asking, for the run's list (`tether status`, the inbox). */
export const EGRESS_REACHED_SIGNAL = 'egressReached';
/** Every connection waiting on an `egress` request has gone: its pending approval is dropped. */
export const EGRESS_WITHDRAW_SIGNAL = 'egressWithdraw';
