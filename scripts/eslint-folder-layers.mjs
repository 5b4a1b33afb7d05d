// A local ESLint plugin holding the folder layering of src/ (the table: scripts/folder-layers.mjs): a value import
// that runs up a layer, or that makes two folders import each other, is an error. Type-only imports are skipped.
// A dynamic import() of a literal path is judged like a static one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { FOLDER_LAYERS, LAYER_OF } from './folder-layers.mjs';

/** The unit a path of src/ belongs to: its top folder, or the file itself when it sits in src/. */
function unitOf(srcRoot, file) {
  const rel = relative(srcRoot, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  const parts = rel.split(sep);
  return parts.length === 1 ? parts[0].replace(/\.js$/, '.ts') : parts[0];
}

const VALUE_IMPORT = /^(?:import|export)\s+(?!type\s)([^;]*?)\s+from\s+'(\.[^']+)'/gms;

/** Whether an import's clause names only types (`import { type A, type B } from`). */
function typeOnlyClause(clause) {
  const braces = /^\{([^}]*)\}$/s.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

/** unit → units it value-imports, from every non-test source file under srcRoot (read once per process). */
const graphs = new Map();
function folderGraph(srcRoot) {
  let graph = graphs.get(srcRoot);
  if (graph) return graph;
  graph = new Map();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        const from = unitOf(srcRoot, path);
        for (const m of readFileSync(path, 'utf8').matchAll(VALUE_IMPORT)) {
          if (typeOnlyClause(m[1])) continue;
          const to = unitOf(srcRoot, resolve(dirname(path), m[2]));
          if (to && to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
        }
      }
    }
  };
  walk(srcRoot);
  graphs.set(srcRoot, graph);
  return graph;
}

const layerName = (unit) => FOLDER_LAYERS[LAYER_OF.get(unit)].name;

/** @type {import('eslint').Rule.RuleModule} */
const foldersLayered = {
  meta: {
    type: 'problem',
    docs: {
      description: 'value imports point to the same or a lower folder layer, and no two folders import each other',
    },
    schema: [{ type: 'object', properties: { srcRoot: { type: 'string' } }, additionalProperties: false }],
  },
  create(context) {
    const srcRoot = resolve(context.options[0]?.srcRoot ?? join(context.cwd, 'src'));
    const from = unitOf(srcRoot, context.filename);
    if (!from || context.filename.endsWith('.test.ts')) return {};
    const check = (node) => {
      if (node.importKind === 'type' || node.exportKind === 'type' || !node.source) return;
      const spec = node.source.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      if (node.type === 'ImportDeclaration' && node.specifiers.length > 0) {
        if (node.specifiers.every((s) => s.importKind === 'type')) return;
      }
      if (node.type === 'ExportNamedDeclaration' && node.specifiers.every((s) => s.exportKind === 'type')) return;
      const to = unitOf(srcRoot, resolve(dirname(context.filename), spec));
      if (!to || to === from) return;
      for (const unit of [from, to]) {
        if (!LAYER_OF.has(unit)) {
          context.report({
            node: node.source,
            message: `src/${unit} has no layer: add it to FOLDER_LAYERS in scripts/folder-layers.mjs`,
          });
          return;
        }
      }
      if (LAYER_OF.get(to) > LAYER_OF.get(from)) {
        context.report({
          node: node.source,
          message: `src/${from} (layer ${layerName(from)}) imports src/${to}, a higher layer (${layerName(to)}): move what it needs down, or import only its type`,
        });
      } else if (folderGraph(srcRoot).get(to)?.has(from)) {
        context.report({
          node: node.source,
          message: `src/${from} and src/${to} import each other: move what one needs from the other into one of them or lower`,
        });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: (node) => {
        if (node.source.type === 'Literal') check(node);
      },
    };
  },
};

export const folderLayers = { rules: { 'folders-layered': foldersLayered } };
