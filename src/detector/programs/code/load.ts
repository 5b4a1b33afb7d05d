// Loads the program readers once per process: Python through tree-sitter-python's wasm grammar in web-tree-sitter,
// JavaScript through oxc-parser. Worker-only (reads files, native parser).
import { createRequire } from 'node:module';
import { parseSync } from 'oxc-parser';
import { Language, Parser } from 'web-tree-sitter';
import { parseCopied } from '../../engine/syntax-tree.js';
import { effectsOf, type ProgramCall, type ProgramEffect } from './effects.js';
import { javascriptCalls, javascriptLoads, type EsNode } from './javascript.js';
import { pythonCalls, pythonLoads } from './python.js';

/** What a program would run, by a real grammar; undefined for a language without one here. */
export type ReadProgram = (source: string, language: string) => ProgramEffect[] | undefined;

let loading: Promise<ReadProgram> | undefined;

function effects(calls: ProgramCall[], parsedWithErrors: boolean, language: string): ProgramEffect[] {
  const out = calls.flatMap(effectsOf);
  // The interpreter refuses a program it cannot parse, but a grammar may disagree with it: what was not read asks.
  const detail = `the ${language} program could not be fully parsed, so not all of it could be checked`;
  if (parsedWithErrors) out.push({ kind: 'computed', detail });
  return out;
}

/** Brackets nested deeper than this in a program's text: it is not parsed. */
const MAX_NESTING = 500;

/** Whether `source` opens more than MAX_NESTING brackets before closing them (strings counted too: it only asks). */
function tooDeep(source: string): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i += 1) {
    const c = source.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) {
      depth += 1;
      if (depth > MAX_NESTING) return true;
    } else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth -= 1;
  }
  return false;
}

export function loadProgramReader(): Promise<ReadProgram> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const python = new Parser();
    python.setLanguage(await Language.load(require.resolve('tree-sitter-python/tree-sitter-python.wasm')));
    return (source: string, language: string): ProgramEffect[] | undefined => {
      // The native JavaScript parser overflows its stack (and ends the process) on brackets 20,000 deep: a program
      // nested past any real one is not parsed, and asks.
      if ((language === 'python' || language === 'javascript' || language === 'typescript') && tooDeep(source))
        return [{ kind: 'computed', detail: `the ${language} program nests more than ${MAX_NESTING} levels deep` }];
      if (language === 'python') {
        const root = parseCopied(python, source);
        if (!root) return effects([], true, language);
        return [...pythonLoads(root), ...effects(pythonCalls(root), root.hasError, language)];
      }
      if (language === 'javascript' || language === 'typescript') {
        // A CommonJS file (require, module.exports) parses as a module too; TypeScript needs its own grammar.
        const r = parseSync(language === 'typescript' ? 'program.ts' : 'program.mjs', source, { sourceType: 'module' });
        const program = r.program as unknown as EsNode;
        return [
          ...javascriptLoads(program, source),
          ...effects(javascriptCalls(program, source), r.errors.length > 0, language),
        ];
      }
      return undefined;
    };
  })();
  return loading;
}
