// The workflows a tether worker runs; this module is the entry of the workflow bundle. Workflow-safe.
export { agentWorkflow, messageSignal, stateQuery } from './agent-workflow.js';
export { answerSignal } from './loop-tools.js';
export { approvalSignal, decideApprovalUpdate } from './approvals.js';
