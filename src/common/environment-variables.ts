// Tables of environment variable names that config validates and the environments apply, kept below both.
// Workflow-safe (pure data).
/** terminal.env_passthrough entries: a variable name, or a name prefix followed by `*`. */
export const PASSTHROUGH_ENTRY = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * Variables dropped from every local command's environment, sandboxed or not: the Temporal credentials (an API key,
 * an mTLS client certificate and key). The server's address stays: a project may talk to a Temporal of its own.
 */
export const CONTROL_PLANE_VARIABLES = ['TEMPORAL_API_KEY', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY'] as const;
