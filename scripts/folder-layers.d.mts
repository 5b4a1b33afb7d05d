// Types of the folder layer table scripts/folder-layers.mjs, for the test that reads it.
export const FOLDER_LAYERS: ReadonlyArray<{ name: string; runs: string; folders: readonly string[] }>;
export const LAYER_OF: ReadonlyMap<string, number>;
