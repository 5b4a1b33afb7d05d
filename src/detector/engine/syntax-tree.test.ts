import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { DANGEROUS, ORDINARY } from '../../../test/fixtures/detect-table.js';
import { copyTree, type SyntaxNode } from './syntax-tree.js';

const require = createRequire(import.meta.url);

/** Every difference between web-tree-sitter's node and its copy, as `path: property`. */
function differences(a: Node, b: SyntaxNode, fields: readonly (string | null)[], path = 'root'): string[] {
  const out: string[] = [];
  const same = (what: string, x: unknown, y: unknown): void => void (x !== y && out.push(`${path}: ${what}`));
  same('type', a.type, b.type);
  same('isNamed', a.isNamed, b.isNamed);
  same('range', `${a.startIndex}-${a.endIndex}`, `${b.startIndex}-${b.endIndex}`);
  same('text', a.text, b.text);
  same('hasError', a.hasError, b.hasError);
  same('children', a.childCount, b.children.length);
  same('namedChildren', a.namedChildCount, b.namedChildCount);
  same('lastNamedChild', a.lastNamedChild?.startIndex, b.lastNamedChild?.startIndex);
  same('previousNamedSibling', a.previousNamedSibling?.startIndex, b.previousNamedSibling?.startIndex);
  for (const f of fields.filter((x) => x !== null)) {
    same(`field ${f}`, a.childForFieldName(f)?.startIndex, b.childForFieldName(f)?.startIndex);
    same(`fields ${f}`, a.childrenForFieldName(f).length, b.childrenForFieldName(f).length);
  }
  if (a.childCount !== b.children.length) return out;
  for (let i = 0; i < a.childCount; i += 1)
    out.push(...differences(a.child(i)!, b.children[i]!, fields, `${path}.${i}`));
  return out;
}

async function compared(grammar: string, sources: string[], types: string[]): Promise<string[]> {
  await Parser.init();
  const language = await Language.load(require.resolve(grammar));
  const parser = new Parser();
  parser.setLanguage(language);
  return sources.flatMap((source) => {
    const tree = parser.parse(source)!;
    try {
      const copy = copyTree(tree, source);
      const found = (nodes: (Node | SyntaxNode | null)[]): string => nodes.map((n) => n?.startIndex).join(' ');
      const descendants = types
        .filter((t) => found(tree.rootNode.descendantsOfType(t)) !== found(copy.descendantsOfType(t)))
        .map((t) => `descendants of type ${t}`);
      return [...differences(tree.rootNode, copy, language.fields), ...descendants].map((d) => `${source}: ${d}`);
    } finally {
      tree.delete();
    }
  });
}

describe('a copied syntax tree reads as web-tree-sitter reads the tree', () => {
  it('for every bash line of the verdict table, broken lines and text beyond ASCII', async () => {
    const broken = [
      'a=(1 2',
      'if; then',
      '$((',
      "x=['a']",
      "rep = r'''",
      "f('a \\'' + b)",
      'cat <<EOF; true\n`curl x | sh`\nEOF',
      '$[]',
      'rm -rf $[] /',
      'echo $[] && rm -rf /',
      '((()#',
      "echo ')' ]",
    ];
    const wide = ['echo "héllo 🙂" && rm -rf ~/ünï', "echo '🙂' `ls` ${x:-é}"];
    const lines = [...DANGEROUS.map((d) => d[0]), ...ORDINARY, ...broken, ...wide];
    expect(await compared('tree-sitter-bash/tree-sitter-bash.wasm', lines, ['command', 'word'])).toEqual([]);
  });

  it('for Python programs, broken ones included', async () => {
    const programs = [
      'import os, subprocess\nsubprocess.run(["rm", "-rf", os.path.expanduser("~")])\n',
      'def f(:\n  x = "é🙂"\nimport os; os.system(f"rm {x}")',
      "import os os.system('x')",
      "-c a=''",
      'with s:-script v',
      'class A:\n    def __init__(self):\n        self.x = [k for k in range(3) if k]\n',
    ];
    expect(
      await compared('tree-sitter-python/tree-sitter-python.wasm', programs, ['call', 'import_statement']),
    ).toEqual([]);
  });

  it('copies a tree far deeper than the call stack allows recursion', async () => {
    await Parser.init();
    const parser = new Parser();
    parser.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
    const source = `${'$('.repeat(20_000)}x${')'.repeat(20_000)}`;
    const tree = parser.parse(source)!;
    try {
      expect(copyTree(tree, source).height).toBeGreaterThan(20_000);
    } finally {
      tree.delete();
    }
  });
});
