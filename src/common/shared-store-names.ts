// Names of the state every worker of a deployment shares through the Temporal server: the workflow types, their
// workflow ids (one deployment is one task queue) and their messages, for the workflows and the worker code that
// reaches them. Workflow-safe (names and types only).
import type { MemoryNote } from './memory-notes.js';
import type { TranscriptEntry } from './transcript.js';

export const MEMORY_BOOK_WORKFLOW = 'memoryBook';
export const SESSION_JOURNAL_WORKFLOW = 'sessionJournal';
export const PAYLOAD_BLOB_WORKFLOW = 'payloadBlob';

/** The memory tool's operation on the book; its id is the Temporal update id, so a repeat applies once. */
export const MEMORY_UPDATE = 'memory';
/** The notes as they are (a read records nothing). */
export const MEMORY_NOTES_QUERY = 'notes';
/** Transcript entries appended to a journal segment; refused (nothing recorded) once the segment is sealed. */
export const JOURNAL_APPEND_UPDATE = 'append';
/** One chunk of a payload's bytes, sent to its blob workflow. */
export const BLOB_CHUNK_SIGNAL = 'chunk';

/** The prefix of a refused append: the writer goes on to the next segment. */
export const JOURNAL_SEALED = 'journal segment sealed';

export const memoryBookId = (taskQueue: string): string => `tether-memory@${taskQueue}`;
export const journalSegmentId = (taskQueue: string, n: number): string => `tether-journal@${taskQueue}#${n}`;
export const payloadBlobId = (taskQueue: string, sha256: string): string => `tether-blob@${taskQueue}#${sha256}`;

export interface MemoryBookInput {
  notes: MemoryNote[];
  nextId: number;
  /** Recent operations and their results, so one retried after continue-as-new is still applied once. */
  applied?: [string, string][];
}

export interface MemoryOperation {
  action: 'add' | 'replace' | 'remove' | 'read';
  content?: string;
  old_text?: string;
  /** The time the note gets, from the worker (the workflow has no clock of its own to offer). */
  at: string;
}

export interface JournalBatch {
  workflowId: string;
  entries: (TranscriptEntry & { at: string })[];
}

export interface JournalSegmentInput {
  /** Bytes of appends after which the segment seals itself. */
  sealAfterBytes?: number;
}

export interface PayloadBlobInput {
  sha256: string;
  bytes: number;
  chunks: number;
  /** The workflow whose history names the blob: once it is gone, so is the blob. */
  owner?: string;
}
