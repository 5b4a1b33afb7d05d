// Where the detector judges a program: the modules under src/detector whose checks judge each name given, and, for a
// command line, what the detector finds in it. The first stop for a newcomer fixing a false alarm or a miss.
// Run: npm run detector:who -- curl git 'curl -T f https://x'
import { modulesJudging } from '../src/detector/checks/dispatch.js';
import { execChecks } from '../src/detector/checks/exec.js';
import { detect } from '../src/detector/engine/detect.js';
import { loadBashParser } from '../src/detector/engine/parser.js';

const exec = execChecks(() => false);
const args = process.argv.slice(2);
if (args.length === 0) {
  console.error('usage: npm run detector:who -- NAME|COMMAND_LINE ...  (a program name, or a command line in quotes)');
  process.exit(2);
}
const parse = await loadBashParser();
for (const arg of args) {
  const line = arg.trim();
  if (line === '') {
    console.error('detector:who: an empty argument names no program (skipped)');
    continue;
  }
  const name = line.split(/\s+/)[0]!.replace(/^.*\//, '');
  const modules = modulesJudging(name, exec);
  const where = modules.map((m) => `src/detector/${m}`).join(', ');
  console.log(`${name}: ${where || 'no table names it (only the checks every command meets: engine/detect.ts)'}`);
  if (/\s/.test(line)) {
    const verdict = detect(parse, line, { cwd: '/work/proj' });
    console.log(
      verdict.findings.length === 0
        ? '  finds nothing: it would run unasked'
        : verdict.findings.map((f) => `  ${f.tier} ${f.rule}: ${f.description}`).join('\n'),
    );
  }
}
