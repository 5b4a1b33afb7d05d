// Shapes that cross the workflow boundary: run input, model messages, tool metadata, state and result. Workflow-safe (types only).
import type { SideEffects, ToolDefinition } from './tool-definition.js';
import type {
  ApprovalMode,
  ApprovalNotice,
  DecidedApproval,
  PendingApproval,
  RejectedDecision,
} from './approval-types.js';
import type { TodoItem } from './loop-schemas.js';
import type { HeldConversation } from './conversation-digest.js';
import type { NetworkReach } from './egress-types.js';

export interface ModelToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** An OpenAI chat message, as much of it as tether uses. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ModelToolCall[];
  tool_call_id?: string;
}

interface RunLimits {
  /** Model turns before the run stops with status `limit_reached` (default 50). */
  maxTurns?: number;
  /** Tool calls run per model turn; the rest get an error result (default 32). */
  maxToolCallsPerTurn?: number;
  /** Tool calls running at once within a parallel segment (default 8). */
  maxParallel?: number;
  /** A model or tool activity that has not heartbeaten for this long is considered lost (default 2; heartbeats come every second). */
  heartbeatTimeoutSeconds?: number;
  /** Continue as new once a run's history has this many events (default 5000; Temporal's own suggestion also counts). */
  continueAsNewAfterEvents?: number;
  /** ... or this many bytes (default 8 MB). */
  continueAsNewAfterBytes?: number;
  /** Sub-agents of one delegate_task call running at once (default 3). */
  maxChildren?: number;
  /** Seconds a clarify question waits for an answer (default 3600). */
  clarifyTimeoutSeconds?: number;
  /**
   * Seconds a terminal or process call waits for the worker holding the task's environment to pick it up before
   * that worker counts as gone and another one makes the environment anew (default 10).
   */
  environmentWorkerTimeoutSeconds?: number;
  /**
   * Record the whole conversation with every model call, as before the conversation cache (history then grows with
   * conversation length times turns; for comparison, or to see each full request in the Temporal UI). Default false.
   */
  wholeConversationInHistory?: boolean;
}

export interface CompactionSettings {
  /** Summarise older turns when the conversation passes this many characters (default 120 000). */
  thresholdChars?: number;
  /** Messages at the end that are kept as they are (default 12). */
  keepRecentMessages?: number;
  /** Model for the summary (default: the run's model). */
  model?: string;
}

/** What a run hands to its continuation (continue-as-new): everything it needs to go on where it was. */
interface CarriedState {
  turn: number;
  toolCallCount: number;
  usage: TokenUsage;
  todo: TodoItem[];
  sessionRules: string[];
  /** Calls approved for the rest of the session, by scope key (absent in carries recorded before). */
  sessionScopes?: string[];
  transcriptSeq: number;
  pendingMessages: string[];
  continuedRuns: number;
  compactions: number;
  /** Where the task's terminal environment lives (absent in runs continued before environments were routed). */
  environment?: { queue?: string; had?: boolean };
  /** Answers given so far in a conversation run (absent before conversations existed). */
  answers?: number;
  /** The turn at which the conversation's current message was taken. */
  messageTurn?: number;
  /** The conversation a worker was last known to hold, so the next run's first model call sends only what is new. */
  modelInput?: HeldConversation;
}

export interface AgentInput {
  /** The task text; or give `messages` to continue a conversation. */
  task?: string;
  messages?: ChatMessage[];
  sessionId?: string;
  model: string;
  enabledToolsets?: string[];
  disabledToolsets?: string[];
  /** Working directory of the run's tools, on the worker's machine. */
  cwd: string;
  systemPrompt?: string;
  limits?: RunLimits;
  /** Overrides approvals.mode of the worker's config.yaml. */
  approvalMode?: ApprovalMode;
  /** Overrides approvals.timeout: seconds a pending approval waits before it counts as denied. */
  approvalTimeoutSeconds?: number;
  /** Overrides terminal.backend of the worker's config.yaml for this run's terminal (`tether run --backend`). */
  backend?: string;
  compaction?: CompactionSettings;
  /**
   * A conversation (an editor session over ACP): after an answer the run stays open and waits for the next `message`
   * signal instead of completing; max-turns then counts per message. It ends when cancelled.
   */
  conversation?: boolean;
  /**
   * The conversation turn (its id) that started this run through update-with-start: that turn's text is the task,
   * so its update adds nothing (src/workflows/conversation-turn.ts).
   */
  turnId?: string;
  /** Set by delegate_task on a sub-agent. */
  parent?: { workflowId: string; depth: number };
  /** Set by `tether batch`: the batch the run belongs to (shown in visibility, `tether list --batch`). */
  batchId?: string;
  /** Set on continue-as-new. */
  carry?: CarriedState;
}

/** What the workflow needs to know about a tool to schedule it. */
export interface ToolMeta {
  emoji: string;
  parallelSafe: boolean;
  sideEffects: SideEffects;
  pathArg?: string;
  /** Handled by the workflow itself (todo, memory, session_search, delegate_task, clarify). */
  agentLoop?: boolean;
  /** The argument holding a shell command that needs an approval check. */
  commandArg?: string;
  /** The argument holding that command's working directory. */
  cwdArg?: string;
  /** The tool says what a call would run: the gate judges every call (assessCall) before it runs. */
  gated?: boolean;
  /** Runs in the task's terminal environment, on the worker that holds it. */
  environment?: boolean;
  timeoutSeconds: number;
}

export interface ToolCatalog {
  definitions: ToolDefinition[];
  meta: Record<string, ToolMeta>;
}

export interface ModelReply {
  message: ChatMessage;
  usage: TokenUsage;
  finishReason: string | null;
  /** The model's reply was over the size limit: `message` is a shortened copy, and its tool calls are not run. */
  oversized?: { bytes: number; limit: number };
  /** An earlier attempt's worker was lost: its id (environment calls stop going to its queue). */
  lostWorker?: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ToolCallView {
  /** Position among all tool calls of the run, from 1. */
  index: number;
  turn: number;
  id: string;
  name: string;
  emoji: string;
  summary: string;
  status: 'running' | 'awaiting_approval' | 'ok' | 'error';
  /** The call's arguments and result, capped, for followers that show them (an editor over ACP). */
  args?: string;
  output?: string;
  /** The checkpoint of the task directory taken just before this call (the first of its turn that may change files). */
  checkpoint?: string;
}

/** The last checkpoint a run took (or tried to): before which turn and call, its id or why there is none. */
interface CheckpointView {
  turn: number;
  callId: string;
  tool: string;
  id?: string;
  skipped?: string;
}

/** Text the model wrote in one turn (with or without tool calls), for followers: one reply per turn at most. */
interface ReplyView {
  turn: number;
  text: string;
}

type RunStatus = 'running' | 'completed' | 'limit_reached' | 'failed' | 'cancelled';

export interface AgentState {
  status: RunStatus;
  model: string;
  turn: number;
  toolCallCount: number;
  currentToolCalls: ToolCallView[];
  lastToolCalls: ToolCallView[];
  /** The last few calls, for followers that poll (`tether run`, `tether attach`). */
  recentToolCalls: ToolCallView[];
  usage: TokenUsage;
  /** Tool calls waiting for a person's decision. */
  pendingApprovals: PendingApproval[];
  /** Each pending approval's notice (approvals.webhook_url), by approval id; absent when none is sent. */
  approvalNotices?: Record<string, ApprovalNotice>;
  /** Hosts the run's commands connected to or were refused, through the egress proxy (absent before it existed). */
  network?: NetworkReach[];
  /** Recent decisions (by a person, smart approval or a timeout), rejected decisions, rules approved for the session. */
  approvals: {
    decided: DecidedApproval[];
    rejected: RejectedDecision[];
    sessionRules: string[];
    /** Scope keys of the calls approved for the rest of the run (ApprovalScope.key). */
    sessionScopes?: string[];
  };
  /** The agent's plan (the todo tool). */
  todo: TodoItem[];
  /** The model's last few texts (absent in states of older workers). */
  recentReplies?: ReplyView[];
  /** Answers given in a conversation run; `idle` while it waits for the next message. */
  answers?: number;
  idle?: boolean;
  /** A clarify question waiting for `tether answer`. */
  question?: PendingQuestion;
  /** Sub-agents started by delegate_task. */
  children: ChildView[];
  /** The last checkpoint of the task directory (absent before the first, and in states of older workers). */
  lastCheckpoint?: CheckpointView;
  /** Continue-as-new transitions so far; the workflow id stays the same. */
  continuedRuns: number;
  /** Times older turns were summarised to keep the conversation within the context. */
  compactions: number;
  answer?: string;
  stopReason?: string;
  error?: string;
}

interface PendingQuestion {
  id: string;
  question: string;
  choices?: string[];
  askedAt: string;
  expiresAt: string;
}

interface ChildView {
  workflowId: string;
  goal: string;
  status: RunStatus;
}

export interface AgentResult {
  status: RunStatus;
  answer: string;
  turns: number;
  toolCalls: number;
  usage: TokenUsage;
  stopReason?: string;
  /** The hosts the run's commands reached or were refused (see AgentState.network). */
  network?: NetworkReach[];
}
