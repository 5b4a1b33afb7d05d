// The activities the agent workflow calls, as types only; implemented in src/activities. Workflow-safe (types only).
import type {
  AllowlistEntry,
  ApprovalFinding,
  AssessCallInput,
  CallAssessment,
  CommandAssessment,
  NoticeDelivery,
  PendingApproval,
  SmartVerdict,
} from './approval-types.js';
import type { TranscriptEntry } from './transcript.js';
import type { ChatMessage, ModelReply, ToolCatalog } from './types.js';
import type { ToolDefinition } from './tool-definition.js';

export interface ListToolsInput {
  enabledToolsets?: string[];
  disabledToolsets?: string[];
}

export interface CallModelInput {
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /**
   * Record messages[fromIndex..] and the reply in the run's transcript, numbered from firstSeq. The run is the
   * workflow that scheduled the call; inputs scheduled before that was left out also name it here (`workflowId`).
   */
  transcript?: { workflowId?: string; turn: number; fromIndex: number; firstSeq: number };
  /**
   * The conversation by reference to what the worker holds (absent in histories recorded before it): `messages`
   * then holds only the messages the worker is not known to have, and `tools` may be empty.
   */
  conversation?: ConversationRef;
  /** Ask for a summary of the conversation (compaction) instead of a reply to it; the worker writes the request. */
  summarise?: boolean;
}

/** A model call's conversation named by digests, so history records each message once. */
export interface ConversationRef {
  /**
   * The run's conversation (its workflow id), under which the worker caches it. Left out since the activity reads
   * its workflow id from its own context; inputs scheduled before (recorded histories, runs in flight) carry it.
   */
  id?: string;
  /** Digest of the whole conversation of this call, checked once the worker has put it together. */
  digest: string;
  /** Digest of the cached conversation that `layout` ranges refer to; absent when `messages` is all of it. */
  base?: string;
  /**
   * The conversation in order: `[from, to]` is messages from..to-1 of `base`, a number an index into `messages`, a
   * string the digest of a message the worker made itself (a tool call's result).
   */
  layout?: ([number, number] | number | string)[];
  /** Digest of the tool definitions; `tools` is empty when the worker is believed to hold them. */
  tools: string;
}

export interface RunToolInput {
  name: string;
  args: string;
  callId: string;
  taskId: string;
  /** The run's task text, whole: inputs scheduled before `userTaskRef` (recorded histories, runs in flight). */
  userTask?: string;
  /**
   * Digest of the run's task text (src/common/conversation-digest.ts): the worker looks the text up only when a hook
   * or a tool will read it (src/activities/task-text.ts), so history does not record it with every call.
   */
  userTaskRef?: string;
  cwd: string;
  /** A person (or the policy) approved this call: a plugin's require_approval no longer stops it. */
  approved?: boolean;
  /** The task's terminal environment existed before this call; if the worker has none, it was lost. */
  environmentExpected?: boolean;
  /** The run's terminal backend, when it overrides the worker's terminal.backend. */
  backend?: string;
  /** runToolOnHolder: the own queue of the worker that may run it (src/activities/holder-only.ts). */
  holder?: string;
  /**
   * The files the gate read to reach the verdict this call runs on (path → digest), when time passed since (a
   * decision, the policy): the worker reads them again first, and a change sends the call back to be judged again.
   */
  bound?: Record<string, string>;
}

export interface RunToolOutput {
  result: string;
  /** `misrouted`: this worker does not hold the environment named by `holder`, and ran nothing. */
  status: 'ok' | 'blocked' | 'approval_required' | 'misrouted';
  /** Why a plugin hook asks for approval. */
  reason?: string;
  /**
   * runGatedTool: the gate's verdict on a call it did not run (`approval_required`), for the workflow to ask about.
   * Without it, `approval_required` is a plugin hook's request (`reason`).
   */
  assessment?: CallAssessment;
  /** For tools that run in the task's environment: the task queue of the worker that holds it now. */
  workerQueue?: string;
  /** An earlier attempt's worker was lost: its id (environment calls stop going to its queue). */
  lostWorker?: string;
}

/** A checkpoint of the task directory before a turn's first call that may change it (src/checkpoints). */
export interface CheckpointInput {
  cwd: string;
  /** The run's chain: its first run id (continue-as-new keeps it). */
  chain: string;
  turn: number;
  /** The call it precedes: id, tool, and its arguments shortened. */
  callId: string;
  tool: string;
  args: string;
}

export interface CheckpointOutput {
  /** The checkpoint's id, when one was taken. */
  id?: string;
  files?: number;
  bytes?: number;
  /** Why none was taken this time (the directory is missing, too large). */
  skipped?: string;
  /** Why none will be taken in this run (checkpoints are off). */
  off?: string;
}

export interface AgentActivities {
  listTools(input: ListToolsInput): Promise<ToolCatalog>;
  callModel(input: CallModelInput): Promise<ModelReply>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
  /** runTool on the worker holding the environment named by `holder`; any other answers `misrouted`, running nothing. */
  runToolOnHolder(input: RunToolInput): Promise<RunToolOutput>;
  /**
   * runTool for a gated tool, judged first in the same activity: a call that needs a person or the policy to decide
   * is not run and comes back as `approval_required` with its `assessment`. (Its own name: a worker from before it
   * fails it with NotFoundError instead of running a call it would not judge.)
   */
  runGatedTool(input: RunToolInput): Promise<RunToolOutput>;
  /** runGatedTool on the worker holding the environment named by `holder`; any other answers `misrouted`. */
  runGatedToolOnHolder(input: RunToolInput): Promise<RunToolOutput>;
  /** The verdict on a command, the allowlist, and the approval policy from the worker's configuration. */
  assessCommand(input: { command: string; cwd: string }): Promise<CommandAssessment>;
  /** What a tool call would run, judged on the worker holding the task's environment (scripts are read there). */
  assessCall(input: AssessCallInput): Promise<CallAssessment>;
  /** assessCall on the worker holding the environment named by `holder`; any other answers `misrouted: true`. */
  assessCallOnHolder(input: AssessCallInput): Promise<CallAssessment>;
  /** Smart approval: an auxiliary model call answering APPROVE, DENY or ESCALATE. */
  judgeCommand(input: { command: string; findings: ApprovalFinding[]; model: string }): Promise<SmartVerdict>;
  /**
   * POSTs a pending approval to the configured webhook; fails (retryably) until the endpoint answers 2xx. Runs
   * recorded before NoticeDelivery got nothing back.
   */
  notifyApproval(input: { approval: PendingApproval }): Promise<NoticeDelivery | void>;
  /** Adds entries to command_allowlist: this worker holds them from now on, and config.yaml for the next start. */
  addToAllowlist(input: { entries: AllowlistEntry[] }): Promise<void>;
  /** The memory tool against the store; `opId` makes a retried call apply once. */
  memoryOp(input: {
    action: 'add' | 'replace' | 'remove' | 'read';
    content?: string;
    old_text?: string;
    opId: string;
  }): Promise<{ result: string }>;
  /** Adds entries to a run's transcript (a compaction summary). */
  recordTranscript(input: { workflowId: string; entries: TranscriptEntry[] }): Promise<void>;
  /** Closes the task's terminal environments on the worker that holds them (the run ended). */
  closeEnvironment(input: { taskId: string }): Promise<{ closed: number }>;
  /** Checkpoints the task directory (src/activities/checkpoints.ts). */
  checkpointTask(input: CheckpointInput): Promise<CheckpointOutput>;
  /** Full-text search over past runs' transcripts. */
  searchSessions(input: { query: string; limit: number; excludeWorkflowId?: string }): Promise<{ result: string }>;
}

/** Activities the deployment's shared-store workflows call (src/workflows/payload-blob.ts). */
export interface StoreActivities {
  /** Whether any run of a workflow id is still known to the server. */
  runExists(input: { workflowId: string }): Promise<boolean>;
}

/**
 * The activity a call is, whichever way it was tried: `runToolOnHolder` (the eager try) and `runGatedTool` (judged
 * in the same activity) are `runTool` calls.
 */
export function callActivity(activityType: string): string {
  return activityType.replace(/OnHolder$/, '').replace(/^runGatedTool$/, 'runTool');
}
