// A run's token usage and, when config.yaml gives a price for its model, its cost: the one shape `tether status`,
// `tether list --json`, the inbox and batch results show. Pure, except pricesIfConfigured. Worker-only.
import type { TokenUsage } from '../common/types.js';
import { existsSync } from 'node:fs';
import type { TetherConfig } from '../config/config.js';
import { configPath } from '../config/home.js';

/** US dollars per million input and output tokens, by model name (observability.prices). */
export type Prices = TetherConfig['observability']['prices'];

export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  /** In US dollars, when the model has a price. */
  costUsd?: number;
}

const count = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n) : 0);

/** Usage as a run reports it (state, result or memo; any may lack it), priced when its model has a price. */
export function runUsage(
  usage: Partial<TokenUsage> | undefined,
  model: string | undefined,
  prices: Prices,
): RunUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const inputTokens = count(usage.promptTokens);
  const outputTokens = count(usage.completionTokens);
  const price = model !== undefined && Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (!price) return { inputTokens, outputTokens };
  // Rounded to a millionth of a dollar: float noise is not a cost.
  const costUsd = Math.round(inputTokens * price.input + outputTokens * price.output) / 1e6;
  return { inputTokens, outputTokens, costUsd };
}

/** `320 in / 37 out tokens · $0.000123`, for terminal lines. */
export function formatUsage(u: RunUsage): string {
  const cost = u.costUsd === undefined ? '' : ` · $${u.costUsd.toFixed(u.costUsd < 0.01 ? 6 : 4)}`;
  return `${u.inputTokens} in / ${u.outputTokens} out tokens${cost}`;
}

/**
 * The prices for the quick reads (`tether list`, `tether status`): the configuration's code (its schema and the
 * validators it checks entries with) is loaded only when there is a config.yaml to read prices from.
 */
export async function pricesIfConfigured(warn?: (line: string) => void): Promise<Prices> {
  if (!existsSync(configPath())) return {};
  const { pricesFromConfig } = await import('./prices.js');
  return pricesFromConfig(warn);
}
