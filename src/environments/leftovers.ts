// At worker start: removes what crashed workers left behind (containers, instances, sandboxes) for the configured backend. Worker-only.
import type { TerminalConfig } from '../config/config.js';
import type { Logger } from '../logging/logger.js';
import { resolveBackend } from './backends.js';

export async function cleanupLeftovers(terminal: TerminalConfig, workerId: string, log: Logger): Promise<number> {
  const { definition, settings } = await resolveBackend(terminal);
  if (!definition.cleanup || definition.unavailable?.(settings)) return 0;
  try {
    const removed = await definition.cleanup(settings, { workerId, log });
    if (removed > 0) log.info({ backend: definition.name, removed }, 'removed environments left by crashed workers');
    return removed;
  } catch (err) {
    // The backend may be down right now; commands will say so. Start-up goes on.
    log.warn({ backend: definition.name, err: String(err) }, 'leftover clean-up failed');
    return 0;
  }
}
