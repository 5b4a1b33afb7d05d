// Turns fetched pages into text for the model: readable main content of HTML (Readability on linkedom), bounded length. Worker-only.
import type { Readability as ReadabilityClass } from '@mozilla/readability';
import type { parseHTML as ParseHTML } from 'linkedom';

/** The HTML libraries, loaded on first use: linkedom takes about 0.2 s to import, which a worker start should not pay. */
let libraries: Promise<{ Readability: typeof ReadabilityClass; parseHTML: typeof ParseHTML }> | undefined;
const loadLibraries = (): NonNullable<typeof libraries> =>
  (libraries ??= Promise.all([import('@mozilla/readability'), import('linkedom')]).then(([r, l]) => ({
    Readability: r.Readability,
    parseHTML: l.parseHTML,
  })));

/** The parts of a DOM node the text walker reads (linkedom's types lean on the DOM lib, which this project does not load). */
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

interface DomDocument extends DomNode {
  title: string;
  body: DomNode | null;
}

const BLOCK = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BR',
  'DD',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'TR',
  'UL',
]);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME']);

function parser(parseHTML: typeof ParseHTML): (html: string) => DomDocument {
  return (html) => (parseHTML(html) as unknown as { document: DomDocument }).document;
}

/** Text of a node with a line break around block elements, headings marked with '#' and list items with '-'. */
function nodeText(node: DomNode): string {
  const out: string[] = [];
  const walk = (n: DomNode): void => {
    if (n.nodeType === 3) {
      out.push((n.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return;
    const tag = n.nodeName.toUpperCase();
    if (SKIP.has(tag)) return;
    if (tag === 'PRE') {
      out.push(`\n${n.textContent ?? ''}\n`);
      return;
    }
    // A list item breaks the line before it only, so items stay on consecutive lines.
    const block = BLOCK.has(tag) && tag !== 'LI';
    if (tag === 'LI') out.push('\n');
    if (block) out.push('\n');
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) out.push(`${'#'.repeat(Number(heading[1]))} `);
    if (tag === 'LI') out.push('- ');
    for (let i = 0; i < n.childNodes.length; i++) walk(n.childNodes[i]!);
    if (block) out.push('\n');
  };
  walk(node);
  return out
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The title and readable main text of an HTML page; the whole body's text when Readability finds no article. */
export async function htmlToText(html: string): Promise<{ title: string; text: string }> {
  const { Readability, parseHTML } = await loadLibraries();
  const parse = parser(parseHTML);
  const doc = parse(html);
  const pageTitle = doc.title.trim();
  // Readability changes the document it reads, so it gets its own copy.
  // Its type names the DOM lib's Document, which is not loaded here; linkedom's document is what it expects.
  const article = new Readability(parse(html) as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  const articleText = article?.content ? nodeText(parse(`<body>${article.content}</body>`)) : '';
  const title = (article?.title ?? '').trim() || pageTitle;
  if (articleText) return { title, text: articleText };
  return { title, text: doc.body ? nodeText(doc.body) : nodeText(doc) };
}

/** Keeps the head of a text within maxChars and says what was cut. */
export function boundText(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  const notice = `\n\n[... cut: the first ${maxChars} of ${text.length} characters are shown]`;
  return { text: text.slice(0, Math.max(0, maxChars - notice.length)) + notice, cut: true };
}
