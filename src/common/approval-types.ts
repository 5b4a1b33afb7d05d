// Shapes of the approval flow that cross the workflow boundary: pending approvals, decisions, policy. Workflow-safe (types and pure helpers).

export type ApprovalMode = 'manual' | 'smart' | 'off';
export type ApprovalChoice = 'once' | 'session' | 'always' | 'deny';
export const APPROVAL_CHOICES: readonly ApprovalChoice[] = ['once', 'session', 'always', 'deny'];

export interface ApprovalFinding {
  rule: string;
  tier: 'hardline' | 'dangerous';
  description: string;
}

/**
 * What a wider approval of one call covers, worked out when it is asked: never a rule, only the call as shown.
 * `session` covers later calls with the same `key` in this run; `always` adds `always` to command_allowlist.
 */
export interface ApprovalScope {
  /**
   * Digest of the call's canonical form: the tool, the command (same program and arguments after quote removal),
   * its standard input, the directory it runs in, and the digest of every file the gate read for it.
   */
  key: string;
  /** In words, what `session` covers (shown before the person chooses). */
  covers: string;
  /** Set when only `once` can be given, and why (what runs could not be read); session and always then mean once. */
  onceOnly?: string;
  /** The command_allowlist entry `always` adds: this exact command in this directory. */
  always?: AllowlistEntry;
  /** Why `always` is not offered (it then means session), when it is not. */
  alwaysNot?: string;
}

/** A command_allowlist entry: an exact command, a rule id or a glob; or an exact command bound to a directory. */
export type AllowlistEntry = string | { command: string; cwd?: string };

/**
 * Where, in a pending approval's `command`, the files the gate read to judge it are: from `at` on, each file as
 * `\n# PATH:\n` and then `chars` characters of its content, in order. What comes before `at` is what the model asked to
 * run (the command and its standard input). A view that finds `command` not laid out so shows it whole.
 */
export interface ReadFiles {
  at: number;
  files: { path: string; chars: number }[];
}

/** A tool call waiting for a person, bound to the call (id, tool, digest of its arguments). */
export interface PendingApproval {
  approvalId: string;
  callId: string;
  tool: string;
  /** Everything the call would run, as judged: the command, its input, the scripts it runs with their content. */
  command: string;
  findings: ApprovalFinding[];
  argsDigest: string;
  askedAt: string;
  /** When it counts as denied. */
  expiresAt: string;
  /** The directory it runs in. */
  cwd?: string;
  /** What session and always would cover (absent in runs recorded before it). */
  scope?: ApprovalScope;
  /** Files the gate read that changed after an earlier verdict on this call: what is shown is their new content. */
  changed?: string[];
  /** Which part of `command` is files the gate read (shown apart, folded); absent in approvals asked before. */
  readFiles?: ReadFiles;
  /** A network approval (src/workflows/egress-approvals.ts): a connection to `host`:`port` made by `command`. */
  kind?: 'network';
  host?: string;
  port?: number;
}

/**
 * Where a pending approval's notice (approvals.webhook_url) stands: being sent (retried until the endpoint answers
 * 2xx), delivered, or not sent at all (the worker that took it has no webhook configured).
 */
export interface ApprovalNotice {
  state: 'sending' | 'delivered' | 'not-sent';
  /** When sending began. */
  since?: string;
  /** When it was delivered (or given up). */
  at?: string;
  /** The endpoint's answer, or why it was not sent. */
  detail?: string;
}

/** The activity id of an approval's notice: `tether status` finds its attempts among the run's pending activities. */
export const noticeActivityId = (approvalId: string): string => `notice-${approvalId}`;

/** What one delivery of a notice came to (the activity retries until it is delivered). */
export interface NoticeDelivery {
  delivered: boolean;
  /** The endpoint's HTTP status. */
  status?: number;
  /** Why it was not sent. */
  reason?: string;
}

/** A decision, as the `approval` signal and the `decideApproval` update carry it. */
export interface ApprovalDecision {
  approvalId: string;
  choice: ApprovalChoice;
  reason?: string;
  /** When given, they must match the pending approval (a decision for another call is rejected). */
  callId?: string;
  argsDigest?: string;
  /** Who decided (a user name, "cli", "gateway"), for the record. */
  by?: string;
  /** A name the sender of a signed gateway decision put in its body: claimed by the signer, never verified. */
  claimedBy?: string;
}

export interface DecidedApproval {
  approvalId: string;
  callId: string;
  tool: string;
  command: string;
  /** What applied: a wider choice than the approval allows is narrowed (see ApprovalScope). */
  choice: ApprovalChoice;
  /** The choice the person made, when it was narrowed to `choice`. */
  asked?: ApprovalChoice;
  reason?: string;
  /** person (signal/update), smart (the auxiliary model), timeout; withdrawn: the connection asking went away. */
  source: 'person' | 'smart' | 'timeout' | 'withdrawn';
  by?: string;
  /** See ApprovalDecision.claimedBy: what the signer said about who decided, not an identity. */
  claimedBy?: string;
  decidedAt: string;
  /** As on PendingApproval, for a network approval. */
  kind?: 'network';
  host?: string;
  port?: number;
}

export interface RejectedDecision {
  approvalId: string;
  reason: string;
  at: string;
}

/** What the worker says about a command before it runs. */
export interface CommandAssessment {
  dangerous: boolean;
  tier: 'hardline' | 'dangerous' | null;
  findings: ApprovalFinding[];
  /** The allowlist entry that allows it, if any. */
  allowlistedBy?: string;
  /** What a wider approval covers (every verdict that may ask a person). */
  scope?: ApprovalScope;
  /**
   * Every file the gate read to judge it (path as the detector names it → digest of what was read): the verdict
   * holds for these contents only, and the worker compares them again before the call runs.
   */
  reads?: Record<string, string>;
  /** Too large to show a person: asking is refused with this message (the model sees it). */
  unshowable?: string;
  /** Files read for an earlier verdict on this call that changed before it ran: this verdict is on their new content. */
  changed?: string[];
  /** The directory the command really runs in (the task shell's, after an earlier `cd`), when it may ask. */
  where?: string;
  /** Which part of the shown command is the files the gate read (see ReadFiles). */
  readFiles?: ReadFiles;
  mode: ApprovalMode;
  timeoutSeconds: number;
  /** A webhook is configured for pending approvals. */
  notify: boolean;
}

/** A tool call the gate judges: the tool says what it would run, the worker holding its environment reads scripts. */
export interface AssessCallInput {
  name: string;
  args: string;
  taskId: string;
  cwd: string;
  backend?: string;
  environmentExpected?: boolean;
  /** assessCallOnHolder: the own queue of the worker that may judge it (src/activities/holder-only.ts). */
  holder?: string;
}

/** The verdict on a tool call, with what a person is shown (the command, its stdin, scripts it runs, the program). */
export interface CallAssessment extends CommandAssessment {
  command: string;
  /** The directory the call's command runs in, as the gate judged it (absent in runs recorded before). */
  cwd?: string;
  /** The worker that judged it holds the task's environment: later calls go there. */
  workerQueue?: string;
  /** This worker is not the `holder` the check was meant for, and judged nothing. */
  misrouted?: true;
}

export interface SmartVerdict {
  answer: 'APPROVE' | 'DENY' | 'ESCALATE';
  /** The model's reply, shortened, for the record. */
  reply: string;
  model: string;
}

/** FNV-1a, twice with different offsets: a stable 64-bit digest of a call's arguments (binding, not secrecy). */
export function argsDigest(text: string): string {
  const fnv = (seed: number): string => {
    let h = seed >>> 0;
    for (let i = 0; i < text.length; i += 1) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, '0');
  };
  return `${fnv(0x811c9dc5)}${fnv(0x050c5d1f)}`;
}
