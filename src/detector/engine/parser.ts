// Loads the bash grammar (tree-sitter-bash's wasm file) into web-tree-sitter once per process. Worker-only (reads files).
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import { parseCopied, type SyntaxNode } from './syntax-tree.js';

export type { SyntaxNode };

/** Parses one command line and hands its syntax tree (null when the parser gives up) to `use`; the tree is freed after. */
export type ParseBash = <T>(source: string, use: (root: SyntaxNode | null) => T) => T;

let loading: Promise<ParseBash> | undefined;

export function loadBashParser(): Promise<ParseBash> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const parser = new Parser();
    parser.setLanguage(language);
    // Trees live in wasm memory: each is copied into plain objects (syntax-tree.ts) and freed at once.
    return <T>(source: string, use: (root: SyntaxNode | null) => T): T => use(parseCopied(parser, source));
  })();
  return loading;
}
