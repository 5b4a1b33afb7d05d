// Which model a run gets, and why: --model, else TETHER_MODEL, else config.yaml's `model:`, else gpt-4o-mini when an
// OpenAI-compatible endpoint is configured, else the local default (Qwen2.5-Coder-1.5B), or `local:tiny` on a machine
// with less free memory than the default needs. Worker-only.
import { readFileSync } from 'node:fs';
import { freemem } from 'node:os';
import { DEFAULT_LOCAL_MODEL, localModelSpec, SMALL_LOCAL_MODEL } from './local-catalog.js';
import { isOpenAIConfigured, openAISettingsFromEnv } from './openai-provider.js';

/** The model for an OpenAI-compatible endpoint when nothing names one. */
export const DEFAULT_ENDPOINT_MODEL = 'gpt-4o-mini';

export interface ModelChoice {
  model: string;
  /** Where it came from, in words (`--model`, `TETHER_MODEL`, `config.yaml model:`, ...). */
  from: string;
  /** One line to print when the choice is not the obvious one (the small model chosen for a small machine). */
  note?: string;
}

/**
 * Memory this process could use (bytes): MemAvailable (free plus what the kernel can reclaim; os.freemem counts only
 * what is unused), within a container's memory limit when one is set.
 */
export function availableMemory(): number {
  let available = freemem();
  try {
    const m = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (m) available = Number(m[1]) * 1024;
  } catch {
    // not Linux: what the OS calls free
  }
  // Node 20.13 and later know a container's limit (cgroups): what is left under it, when that is less.
  const underLimit = (process as { availableMemory?: () => number }).availableMemory?.();
  return underLimit !== undefined && underLimit > 0 ? Math.min(available, underLimit) : available;
}

const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export function chooseModelWithReason(
  flag: string | undefined,
  configModel: string | undefined,
  env: Record<string, string | undefined> = process.env,
  memory: () => number = availableMemory,
): ModelChoice {
  if (flag?.trim()) return { model: flag.trim(), from: '--model' };
  if (env.TETHER_MODEL?.trim()) return { model: env.TETHER_MODEL.trim(), from: 'TETHER_MODEL' };
  if (configModel) return { model: configModel, from: 'config.yaml model:' };
  if (isOpenAIConfigured(openAISettingsFromEnv(env)))
    return {
      model: DEFAULT_ENDPOINT_MODEL,
      from: `the default with ${env.OPENAI_BASE_URL ? 'OPENAI_BASE_URL' : 'OPENAI_API_KEY'} set`,
    };
  const spec = localModelSpec(DEFAULT_LOCAL_MODEL)!;
  const free = memory();
  if (spec.minFreeMemory !== undefined && free < spec.minFreeMemory)
    return {
      model: SMALL_LOCAL_MODEL,
      from: 'the local default for small machines',
      note:
        `${gib(free)} of memory is free, less than the ${gib(spec.minFreeMemory)} ${DEFAULT_LOCAL_MODEL} needs: ` +
        `using ${SMALL_LOCAL_MODEL} (SmolLM2-135M: it shows the loop working, its answers are not useful). ` +
        'Set OPENAI_BASE_URL or OPENAI_API_KEY for a real model, or --model to choose.',
    };
  return { model: DEFAULT_LOCAL_MODEL, from: 'the local default: no model is configured' };
}
