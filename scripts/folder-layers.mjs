// The folder layers of src/: each top folder (or top-level file) of src/ in one layer, lowest first. A value import
// may point to its own layer or a lower one, never up; two folders never import each other (type-only imports are
// free: they vanish when compiled). Read by the lint rule in scripts/eslint-folder-layers.mjs and drawn in
// docs/architecture.md. A new folder of src/ goes here first: lint names it until it does.

/** @type {ReadonlyArray<{ name: string, runs: string, folders: readonly string[] }>} */
export const FOLDER_LAYERS = [
  { name: 'shared', runs: 'everywhere, workflow sandbox included (pure)', folders: ['common'] },
  { name: 'settings', runs: 'every process: config.yaml, tether home, logging', folders: ['config', 'logging'] },
  { name: 'detector', runs: 'pure command analysis: parse, walk, what programs do', folders: ['detector'] },
  { name: 'policy', runs: 'approval policy, scope, allowlists and the text a person approves', folders: ['approval'] },
  { name: 'workflow', runs: "Temporal's workflow sandbox (deterministic)", folders: ['workflows'] },
  {
    name: 'services',
    runs: 'worker and client alike: Temporal connection, payloads, stores, models, telemetry',
    folders: ['fs', 'models', 'payloads', 'store', 'observability', 'temporal', 'visibility'],
  },
  {
    name: 'runtime',
    runs: 'worker: the tools and where they run',
    folders: [
      'registry',
      'toolsets',
      'environments',
      'tool-egress',
      'files',
      'web',
      'browser',
      'code',
      'tools',
      'mcp',
      'plugins',
      'checkpoints',
    ],
  },
  {
    name: 'worker',
    runs: 'the worker process: activities and its assembly',
    folders: ['activities', 'liveness', 'worker.ts'],
  },
  {
    name: 'client-core',
    runs: 'client side: decisions, batches, schedules',
    folders: ['decisions', 'batch', 'schedules'],
  },
  {
    name: 'client',
    runs: 'the front ends: command line, inbox, editor (ACP)',
    folders: ['acp', 'inbox', 'cli', 'client.ts'],
  },
];

/** folder (or top-level file) → its layer's index. */
export const LAYER_OF = new Map(FOLDER_LAYERS.flatMap((l, i) => l.folders.map((f) => [f, i])));
