// The names of the agent workflow's queries, signals and updates, for the workflow that handles them and the worker
// and client code that sends them: one definition, so the two sides cannot drift apart. Workflow-safe.

/** The run's task text, for a tool call with a hook or tool that reads it (src/workflows/task-text.ts). */
export const TASK_TEXT_QUERY = 'taskText';
/** The model request in flight, whole, for a worker that missed its cache (src/workflows/model-input.ts). */
export const MODEL_REQUEST_QUERY = 'modelRequest';
