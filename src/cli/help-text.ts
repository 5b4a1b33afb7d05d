// What `tether --help` says after the commands: examples for the first things people do, and the environment
// variables tether reads (one table, also what docs/cli.md lists). Worker-only (client code, pure).

export const EXAMPLES: readonly [string, string][] = [
  ['tether run "Read README.md and tell me in one sentence what this project is"', 'a run, followed to its answer'],
  [
    'tether run --detach "Long task" && tether attach <workflowId>',
    'start now, follow later (Ctrl-C stops following only)',
  ],
  ['tether approvals', 'what waits for a decision; then: tether approve <workflowId> <approvalId>'],
  ['tether batch tasks.jsonl --concurrency 4', 'one run per line; run it again to resume'],
  ['tether checkpoints <workflowId> && tether rollback <workflowId> --turn 3', 'put the task directory back'],
  ['tether config check', 'every problem of config.yaml at once'],
];

/** The variables tether reads, and what each one sets. */
export const ENVIRONMENT: readonly [string, string][] = [
  ['OPENAI_BASE_URL', 'an OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, LiteLLM, ...)'],
  ['OPENAI_API_KEY', "the endpoint's key (OpenAI itself when OPENAI_BASE_URL is unset)"],
  ['TETHER_MODEL', 'the model runs use (--model overrides it; config.yaml model: is next)'],
  ['TETHER_HOME', 'state, logs, config.yaml (default ~/.tether)'],
  ['TETHER_CONFIG', 'the config file (default TETHER_HOME/config.yaml)'],
  ['TETHER_CACHE', 'where local model weights are kept (default ~/.cache/tether)'],
  ['TEMPORAL_ADDRESS', "a Temporal server (unset: tether's own dev server on 127.0.0.1:7233)"],
  ['TEMPORAL_NAMESPACE', 'its namespace (default "default")'],
  ['TEMPORAL_API_KEY, TEMPORAL_TLS*', 'Temporal Cloud, mTLS'],
  ['TETHER_TASK_QUEUE', 'the task queue (default: one per TETHER_HOME on this machine; "tether" on a cluster)'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'traces over OTLP (with the other OTEL_* variables)'],
];

const table = (rows: readonly [string, string][], indent: string): string => {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `${indent}${a.padEnd(width)}  ${b}`).join('\n');
};

/** The text after the command list of `tether --help`. */
export function helpAfter(): string {
  return [
    '',
    'Examples:',
    table(EXAMPLES, '  '),
    '',
    'Environment:',
    table(ENVIRONMENT, '  '),
    '',
    "`tether <command> --help` shows a command's options; docs/cli.md is the reference.",
  ].join('\n');
}

/**
 * A command-line error as one line: commander's message (and its "Did you mean" on the next line) joined, with
 * where to look next, instead of the whole help after it.
 */
export function errorLine(message: string): string {
  const text = message
    .trim()
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)')
    .replace(/\n+/g, ' ');
  const hint = /unknown command/.test(text) ? 'tether --help lists the commands' : '--help shows how to use it';
  return `tether: ${text}; ${hint}\n`;
}
