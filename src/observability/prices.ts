// The model prices of config.yaml (observability.prices), for commands that show what runs cost. Worker-only.
import { loadConfig } from '../config/config.js';
import type { Prices } from './usage.js';

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
