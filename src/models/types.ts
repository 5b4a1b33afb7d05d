// The interface every model backend implements: messages and tools in, one assistant message out. Worker-only (types).
import type { CallModelInput } from '../common/activity-contract.js';
import type { ModelReply } from '../common/types.js';

export interface ModelProvider {
  /** What `tether run` prints as the model in use. */
  describe(model: string): string;
  complete(input: CallModelInput, signal: AbortSignal): Promise<ModelReply>;
}

/** Model names with this prefix run on the local model; every other name goes to the OpenAI-compatible endpoint. */
export const LOCAL_PREFIX = 'local:';
