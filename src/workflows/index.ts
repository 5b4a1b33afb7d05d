// The workflows a tether worker runs; this module is the entry of the workflow bundle. Workflow-safe.
export { agentWorkflow, stateQuery } from './agent-workflow.js';
export { approvalSignal, decideApprovalUpdate } from './approvals.js';
