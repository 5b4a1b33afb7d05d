// A tree-sitter syntax tree copied once into plain objects. Every property of a web-tree-sitter Node (type, text,
// parent, a field) is a call into wasm memory, and the checks read each node many times: one cursor walk that copies
// the tree makes each later read a plain property, and lets the wasm tree be freed at once.
import type { Language, Parser, Tree } from 'web-tree-sitter';

let lastId = 0;
/** Whether a node type (by its id in a grammar) is named: the same for every node of the type. */
const namedByType = new WeakMap<Language, Map<number, boolean>>();

export class SyntaxNode {
  /** Unique among all trees copied in this process (a web-tree-sitter id is only unique within one live tree). */
  readonly id = (lastId += 1);
  readonly children: SyntaxNode[] = [];
  /** Each child's field name in this node's grammar rule, by child index; null where it has none. */
  private readonly fields: (string | null)[] = [];
  /** The depth of the deepest node under this one (0 for a leaf). */
  height = 0;
  #text: string | undefined;
  #named: readonly SyntaxNode[] | undefined;
  /** Where this node is among its parent's children. */
  #index = 0;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly parent: SyntaxNode | null,
    private readonly source: string,
    /** Whether this node or any node under it is an ERROR or a MISSING node inserted by the parser: web-tree-sitter's
     * own answer (a MISSING token of a hidden rule has no node of its own, but its ancestors have errors). */
    readonly hasError: boolean,
  ) {}

  get text(): string {
    return (this.#text ??= this.source.slice(this.startIndex, this.endIndex));
  }

  get namedChildren(): readonly SyntaxNode[] {
    return (this.#named ??= this.children.filter((c) => c.isNamed));
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  get lastNamedChild(): SyntaxNode | null {
    return this.children.findLast((c) => c.isNamed) ?? null;
  }

  /** The nearest named node before this one under the same parent. (Around a zero-width MISSING node web-tree-sitter
   * may answer with a node that is not a sibling; this is always the sibling.) */
  get previousNamedSibling(): SyntaxNode | null {
    const siblings = this.parent?.children ?? [];
    for (let i = this.#index - 1; i >= 0; i -= 1) if (siblings[i]!.isNamed) return siblings[i]!;
    return null;
  }

  /** This node and every node under it of type `type`, in the order of the text (no recursion). */
  descendantsOfType(type: string): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    const stack: SyntaxNode[] = [this];
    for (let n = stack.pop(); n; n = stack.pop()) {
      if (n.type === type) out.push(n);
      for (let i = n.children.length - 1; i >= 0; i -= 1) stack.push(n.children[i]!);
    }
    return out;
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  add(child: SyntaxNode, field: string | null): void {
    child.#index = this.children.length;
    this.children.push(child);
    this.fields.push(field);
  }

  /** The first child in field `name`; none in an ERROR node, as web-tree-sitter gives it (childrenForFieldName does). */
  childForFieldName(name: string): SyntaxNode | null {
    const i = this.type === 'ERROR' ? -1 : this.fields.indexOf(name);
    return i < 0 ? null : this.children[i]!;
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    return this.children.filter((_, i) => this.fields[i] === name);
  }
}

/** Parses `source` and copies its tree, freeing the wasm tree at once; null when the parser gives up. */
export function parseCopied(parser: Parser, source: string): SyntaxNode | null {
  const tree = parser.parse(source);
  if (!tree) return null;
  try {
    return copyTree(tree, source);
  } finally {
    tree.delete();
  }
}

/** Copies `tree` (parsed from `source`) with one cursor walk, without recursion: a tree any depth deep is copied. */
export function copyTree(tree: Tree, source: string): SyntaxNode {
  const cursor = tree.walk();
  try {
    // Without an error at the root there is none anywhere; with one, each node's own answer is asked (rare).
    const broken = tree.rootNode.hasError;
    let named = namedByType.get(tree.language);
    if (!named) namedByType.set(tree.language, (named = new Map()));
    const node = (parent: SyntaxNode | null): SyntaxNode => {
      const typeId = cursor.nodeTypeId;
      const type = tree.language.types[typeId] ?? 'ERROR';
      let isNamed = named.get(typeId);
      if (isNamed === undefined) named.set(typeId, (isNamed = cursor.nodeIsNamed));
      const [start, end] = [cursor.startIndex, cursor.endIndex];
      // Only an empty node can be one the parser inserted.
      const missing = start === end && cursor.nodeIsMissing;
      return new SyntaxNode(type, isNamed, missing, start, end, parent, source, broken && cursor.currentNode.hasError);
    };
    const root = node(null);
    let current = root;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        const child = node(current);
        current.add(child, cursor.currentFieldName);
        current = child;
        continue;
      }
      for (;;) {
        const parent = current.parent;
        if (!parent) return root;
        parent.height = Math.max(parent.height, current.height + 1);
        if (cursor.gotoNextSibling()) {
          const sibling = node(parent);
          parent.add(sibling, cursor.currentFieldName);
          current = sibling;
          break;
        }
        cursor.gotoParent();
        current = parent;
      }
    }
  } finally {
    cursor.delete();
  }
}
