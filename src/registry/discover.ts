// Finds tool modules by parsing their source: only a module with a top-level `registry.register(...)` is imported. Worker-only.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describeError } from '../common/errors.js';
import { lazyLogger, type Logger } from '../logging/logger.js';

interface DiscoveryResult {
  /** Modules imported because they register a tool at top level. */
  loaded: string[];
  /** Modules left alone: helpers with no top-level registration. */
  skipped: string[];
  /** Modules that should have loaded but could not be parsed or imported; the others still load. */
  failed: { module: string; error: string }[];
}

const MODULE_FILE = /\.(ts|mts|js|mjs)$/;
const NOT_A_MODULE = /(\.d\.ts|\.d\.mts|\.test\.[mc]?[jt]s|\.spec\.[mc]?[jt]s)$/;

type Node = { type: string; [key: string]: unknown };

function isRegisterCall(node: unknown): boolean {
  let n = node as Node | null | undefined;
  if (n?.type === 'AwaitExpression') n = n.argument as Node;
  if (n?.type !== 'CallExpression') return false;
  const callee = n.callee as Node;
  if (callee.type !== 'MemberExpression' || callee.computed) return false;
  const object = callee.object as Node;
  const property = callee.property as Node;
  return (
    object.type === 'Identifier' &&
    object.name === 'registry' &&
    property.type === 'Identifier' &&
    property.name === 'register'
  );
}

function declaresWithRegister(decl: Node | null | undefined): boolean {
  if (decl?.type !== 'VariableDeclaration') return false;
  return (decl.declarations as Node[]).some((d) => isRegisterCall(d.init));
}

/**
 * True when a statement at the top level of the module is a `registry.register(...)` call (also as the
 * initialiser of a top-level const). Calls inside functions, conditions or blocks do not count.
 */
export function hasTopLevelRegister(filename: string, source: string): boolean {
  const parsed = parseSync(filename, source, { sourceType: 'module' });
  if (parsed.errors.length > 0) {
    throw new SyntaxError(parsed.errors.map((e) => e.message).join('; '));
  }
  return (parsed.program.body as unknown as Node[]).some((stmt) => {
    if (stmt.type === 'ExpressionStatement') return isRegisterCall(stmt.expression);
    if (stmt.type === 'VariableDeclaration') return declaresWithRegister(stmt);
    if (stmt.type === 'ExportNamedDeclaration') return declaresWithRegister(stmt.declaration as Node | null);
    return false;
  });
}

function defaultToolsDir(): string {
  return fileURLToPath(new URL('../tools/', import.meta.url));
}

/** Imports every self-registering module in `toolsDir` (default: this build's `tools` folder), in name order. */
export async function discoverBuiltinTools(
  toolsDir = defaultToolsDir(),
  log: Logger = lazyLogger,
): Promise<DiscoveryResult> {
  const result: DiscoveryResult = { loaded: [], skipped: [], failed: [] };
  const files = readdirSync(toolsDir, { withFileTypes: true })
    .filter((e) => e.isFile() && MODULE_FILE.test(e.name) && !NOT_A_MODULE.test(e.name))
    .map((e) => e.name)
    .sort();
  for (const file of files) {
    const path = join(toolsDir, file);
    const module = basename(file).replace(MODULE_FILE, '');
    try {
      if (!hasTopLevelRegister(file, readFileSync(path, 'utf8'))) {
        result.skipped.push(module);
        continue;
      }
      await import(pathToFileURL(path).href);
      result.loaded.push(module);
    } catch (err) {
      const { type, message } = describeError(err);
      const error = `${type}: ${message}`;
      log.warn({ module, path, error }, `Tool module '${module}' failed to load and was skipped`);
      result.failed.push({ module, error });
    }
  }
  return result;
}
