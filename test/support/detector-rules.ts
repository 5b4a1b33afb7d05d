// The detector's rule ids for a command, for the check modules' tests: the bash parser is loaded once per test file.
import { beforeAll } from 'vitest';
import { detect } from '../../src/detector/engine/detect.js';
import { loadBashParser, type ParseBash } from '../../src/detector/engine/parser.js';

/** Call at a test file's top level; the function it returns works inside the file's tests. */
export function detectorRules(cwd = '/home/me/proj'): (command: string) => string[] {
  let parse: ParseBash | undefined;
  beforeAll(async () => {
    parse = await loadBashParser();
  });
  return (command) => {
    if (!parse) throw new Error('detectorRules: the parser is loaded in beforeAll; call the function inside a test');
    return detect(parse, command, { cwd }).findings.map((f) => f.rule);
  };
}
