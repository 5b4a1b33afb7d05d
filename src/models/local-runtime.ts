// Loads a GGUF model with node-llama-cpp on the CPU (its prebuilt binary; nothing compiled or downloaded), once per
// provider, and runs one reply at a time. Worker-only.
import type { Llama, LlamaContext, LlamaModel } from 'node-llama-cpp';
import type { LocalFormat } from './local-catalog.js';

export interface LocalModelSettings {
  /** The catalog id (src/models/local-catalog.ts). */
  id: string;
  format: LocalFormat;
  modelPath: string;
  threads: number;
  contextSize: number;
  /** After this many tool rounds the model must answer (small models otherwise call tools forever). */
  maxToolRounds: number;
}

export interface LoadedModel {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
}

/** Loaded on first use only: workers that never use a local model never load node-llama-cpp. */
export function lazyModel(settings: LocalModelSettings): () => Promise<LoadedModel> {
  let loading: Promise<LoadedModel> | undefined;
  return () =>
    (loading ??= (async () => {
      const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
      // build: 'never' — use the prebuilt CPU binary shipped in the npm package; never compile or download.
      const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: LlamaLogLevel.error });
      const model = await llama.loadModel({ modelPath: settings.modelPath });
      const context = await model.createContext({ contextSize: settings.contextSize, threads: settings.threads });
      return { llama, model, context };
    })());
}

/** Runs `fn`s one after another: a model has one context sequence, so replies are generated one at a time. */
export function oneAtATime(): <T>(fn: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const next = queue.then(fn);
    queue = next.catch(() => undefined);
    return next;
  };
}
