// A run's token usage and, when config.yaml gives a price for its model, its cost: the one shape `tether status`,
// `tether list --json`, the inbox and batch results show. Pure, except pricesFromConfig. Worker-only.
import type { TokenUsage } from '../common/types.js';
import { loadConfig, type TetherConfig } from '../config/config.js';

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
 * The prices of config.yaml for commands that only look (status, list, the inbox): a broken file costs the cost
 * column and one warning line, never the listing.
 */
export function pricesFromConfig(warn: (line: string) => void = (l) => void process.stderr.write(`${l}\n`)): Prices {
  try {
    return loadConfig().observability.prices;
  } catch (err) {
    warn(`tether: warning: no cost shown: ${(err as Error).message}`);
    return {};
  }
}
