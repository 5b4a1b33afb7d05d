// Redaction at the one dispatch path: every tool result is passed through the same policy as terminal output
// (src/common/redact.ts) before the model or the history sees it. Worker-only.
import { currentConfig } from '../config/current.js';
import { redactSecrets, secretValues } from '../common/redact.js';

/** The variables whose values are secrets: this process's and terminal.env's (when the configuration loads). */
function terminalEnv(): Record<string, string> | undefined {
  try {
    return currentConfig().terminal.env;
  } catch {
    return undefined; // a broken config.yaml is reported at start-up; redaction still covers the process's own
  }
}

export function redactToolOutput(text: string): string {
  return redactSecrets(text, secretValues(process.env, terminalEnv()));
}
