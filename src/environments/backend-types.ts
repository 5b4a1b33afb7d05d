// What a terminal backend declares: its config section, availability check and transport factory. Worker-only (types only).
import type { z } from 'zod';
import type { Logger } from '../logging/logger.js';
import type { Transport } from './types.js';

/** What a backend knows about the environment it creates. */
export interface BackendContext {
  /** The task the environment serves; used in names and labels. */
  taskId: string;
  /** The run's working directory on the worker's machine (the local backend's cwd; a mount source elsewhere). */
  hostCwd: string;
  /** This worker process's id (labels on containers and sandboxes, so leftovers of dead workers can be found). */
  workerId: string;
  log: Logger;
  /** The run whose tool call made the environment, when one did (its egress proxy asks that run). */
  workflowId?: string;
}

export interface BackendDefinition<S = unknown> {
  /** The value of `terminal.backend` that selects it. */
  name: string;
  /** One line for `tether exec --help` and `tether tools`. */
  description: string;
  /** Its section of config.yaml, `terminal.<name>`; validated when the worker starts (a wrong setting fails fast). */
  settings: z.ZodType<S>;
  /** Why the backend cannot be used here (missing credentials or binary), or undefined when it can. */
  unavailable?(settings: S): string | undefined;
  /** Checked once when the worker starts: throws a one-line configuration error, or returns warnings to show. */
  preflight?(settings: S): string[] | Promise<string[]>;
  create(settings: S, ctx: BackendContext): Transport;
  /** Removes what dead workers left behind (containers, instances); returns how many were removed. */
  cleanup?(settings: S, ctx: Omit<BackendContext, 'taskId' | 'hostCwd'>): Promise<number>;
}
