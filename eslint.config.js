// Lint: TypeScript-aware rules; floating and misused promises are errors (the most common Temporal bug); and the
// architecture's boundaries: no import cycles, folder layers (scripts/folder-layers.mjs), and workflow code
// (src/workflows, src/common) reaches nothing but itself, zod and Temporal's workflow-side packages (no Node
// built-in, worker folder or native module).
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { folderLayers } from './scripts/eslint-folder-layers.mjs';

/** Workflow code is bundled into Temporal's sandbox: what it may import, besides its own folder. */
const workflowImports = (allowedRelative, what) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          regex: `^(?!(?:@temporalio/workflow|@temporalio/common|zod)$)(?!(?:${allowedRelative})(?!.*\\.\\.))`,
          message: `${what} is workflow code: it may import only ${allowedRelative.replaceAll('\\', '')}, zod and @temporalio/workflow or /common (no Node built-in, worker folder or native module).`,
        },
      ],
    },
  ],
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tether-tools/**',
      'test/fixtures/discovery/**',
      'test/fixtures/fake-apptainer/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Without the extensions the rule parses no .ts dependency and so never sees a cycle.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Folder layers (scripts/folder-layers.mjs): value imports point down or sideways, no two folders import each other.
    files: ['src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { layers: folderLayers },
    rules: { 'layers/folders-layered': 'error' },
  },
  {
    files: ['src/workflows/**/*.ts'],
    ignores: ['**/*.test.ts'],
    // Besides common (secret redaction lives there): the pure text modules the visibility memo needs.
    rules: workflowImports('\\./|\\.\\./common/|\\.\\./approval/(visible|approval)-text\\.js$', 'src/workflows'),
  },
  { files: ['src/common/**/*.ts'], ignores: ['**/*.test.ts'], rules: workflowImports('\\./', 'src/common') },
  {
    files: [
      'eslint.config.js',
      'scripts/**/*.mjs',
      'test/support/*.mjs',
      'src/inbox/assets/*.js',
      'test/fixtures/module-recorder/*.mjs',
      'test/fixtures/*.mjs',
    ],
    ...tseslint.configs.disableTypeChecked,
  },
);
