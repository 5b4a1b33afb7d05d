// The settings in effect for `tether config show`: each leaf of config.yaml's settings with its value and whether the
// file or the default gave it, then what comes from the environment (the model, its endpoint, Temporal, the task
// queue, the folders). Secret values are never printed. Worker-only.
import { translateHermes } from '../config/hermes-keys.js';
import { checkConfigFile, configPath } from '../config/config.js';
import { problemLine } from '../config/config-check.js';
import { tetherHome } from '../config/home.js';
import { renderApprovalText } from '../approval/approval-text.js';
import { temporalSettings } from '../temporal/settings.js';
import { endpointLabel, openAISettingsFromEnv } from '../models/openai-provider.js';
import { DEFAULT_LOCAL_MODEL, localModelSpec, modelCacheDir } from '../models/local-catalog.js';
import { modelChoice } from './run-options.js';
import { CliError } from './errors.js';

export interface SettingRow {
  setting: string;
  value: string;
  from: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sections whose keys are names the person chose (servers, variables, prices): shown as one value each. */
const WHOLE = new Set(['terminal.env', 'mcp_servers', 'observability.prices']);
/** Settings whose value is a secret: said to be set, never shown. */
const SECRET = new Set(['approvals.secret']);

function leaves(value: unknown, path: string[], out: [string, unknown][]): void {
  const key = path.join('.');
  if (isRecord(value) && !WHOLE.has(key) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  } else out.push([key, value]);
}

function given(raw: unknown, path: string): boolean {
  let at: unknown = raw;
  for (const k of path.split('.')) {
    if (!isRecord(at) || !Object.hasOwn(at, k)) return false;
    at = at[k];
  }
  return true;
}

/** A value on one line, secrets in it redacted as a shared view redacts them. */
function shown(setting: string, value: unknown): string {
  if (value === undefined) return '(unset)';
  if (SECRET.has(setting)) return `(set, ${String(value).length} characters, not shown)`;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return renderApprovalText(text, { redact: true, newlines: 'escape' }).text;
}

export async function effectiveSettings(env = process.env): Promise<SettingRow[]> {
  const file = configPath();
  const checked = checkConfigFile(file);
  if (!checked.config)
    throw new CliError(
      `${file} has problems, so no setting of it is in effect: ${checked.problems.map(problemLine).join('; ')} (tether config check lists them)`,
      1,
    );
  const raw = checked.exists ? translateHermes(checked.raw).value : {};
  const fileName = `config.yaml${env.TETHER_CONFIG ? ' (TETHER_CONFIG)' : ''}`;
  const rows: SettingRow[] = [];
  const model = modelChoice(undefined, env);
  rows.push({ setting: 'model', value: model.model, from: model.from });
  const openai = openAISettingsFromEnv(env);
  const local = localModelSpec(model.model);
  rows.push({
    setting: 'model endpoint',
    value: local ? `this machine's CPU (${local.title})` : endpointLabel(openai),
    from: local ? 'a local model' : openai.baseURL ? 'OPENAI_BASE_URL' : 'the default',
  });
  rows.push({
    setting: 'OPENAI_API_KEY',
    value: env.OPENAI_API_KEY ? `(set, ${env.OPENAI_API_KEY.length} characters, not shown)` : '(unset)',
    from: 'environment',
  });
  const t = temporalSettings(env);
  rows.push({
    setting: 'Temporal',
    value: t.embedded ? `${t.address}, tether's dev server` : t.address,
    from: t.embedded ? 'the default (TEMPORAL_ADDRESS unset)' : 'TEMPORAL_ADDRESS',
  });
  rows.push({
    setting: 'namespace',
    value: t.namespace,
    from: env.TEMPORAL_NAMESPACE ? 'TEMPORAL_NAMESPACE' : 'the default',
  });
  rows.push({
    setting: 'task queue',
    value: t.taskQueue,
    from:
      t.queueSource === 'TETHER_TASK_QUEUE'
        ? 'TETHER_TASK_QUEUE'
        : t.queueSource === 'TETHER_HOME'
          ? 'the default: one queue per TETHER_HOME with a server on this machine'
          : 'the default for a server elsewhere',
  });
  rows.push({ setting: 'TETHER_HOME', value: tetherHome(env), from: env.TETHER_HOME ? 'TETHER_HOME' : 'the default' });
  rows.push({
    setting: 'config file',
    value: `${file}${checked.exists ? '' : ' (does not exist)'}`,
    from: env.TETHER_CONFIG ? 'TETHER_CONFIG' : 'TETHER_HOME',
  });
  rows.push({
    setting: 'model cache',
    value: modelCacheDir(localModelSpec(DEFAULT_LOCAL_MODEL)!, env).replace(/\/[^/]+$/, ''),
    from: env.TETHER_CACHE ? 'TETHER_CACHE' : 'the default',
  });
  const config: [string, unknown][] = [];
  leaves(checked.config, [], config);
  for (const [setting, value] of config) {
    if (setting === 'model') continue; // shown above, with the rest of the choice
    rows.push({ setting, value: shown(setting, value), from: given(raw, setting) ? fileName : 'the default' });
  }
  return rows;
}
