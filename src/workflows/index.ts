// The workflows a tether worker runs; this module is the entry of the workflow bundle. Workflow-safe.
export { agentWorkflow, messageSignal, stateQuery } from './agent-workflow.js';
export { answerSignal } from './loop-tools.js';
export { approvalSignal, decideApprovalUpdate } from './approvals.js';
// The deployment's shared state, kept by the Temporal server (src/common/shared-store-names.ts).
export { memoryBook } from './memory-book.js';
export { sessionJournal } from './session-journal.js';
export { payloadBlob } from './payload-blob.js';
