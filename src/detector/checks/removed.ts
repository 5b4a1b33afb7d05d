// Files removed, by rm and unlink or by git rm, judged once for what they were: a security scanner's workflow
// (ci-tampering), an agent's rules (agent-safety), the pipeline, the code owners or the tests (test-tampering). What a
// deletion destroys (recursive deletes of the home, the system) is files.ts's. Pure.
import { has, parseFlags } from '../engine/argv.js';
import type { Word } from '../engine/words.js';
import type { GitCheck } from '../programs/git/call.js';
import { rulesRemoved } from './agent-rules.js';
import { securityRemoved } from './ci.js';
import { judges } from './registry.js';
import { pipelineOrTestsRemoved } from './test-tampering.js';
import { show, type Check, type CheckContext } from './types.js';

/** Judges removed files; `recursive`: whole directories go. */
export function filesRemoved(targets: Word[], recursive: boolean, detail: string, ctx: CheckContext): void {
  securityRemoved(targets, detail, ctx);
  rulesRemoved(targets, detail, ctx);
  pipelineOrTestsRemoved(targets, recursive, detail, ctx);
}

const rm: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args);
  filesRemoved(f.operands, has(f, 'rR', '--recursive'), show(cmd), ctx);
};

/** git rm: the files leave the next commit (and, pushed, every clone's working tree). */
export const gitRm: GitCheck = ({ sub, rest }, cmd, _io, ctx) => {
  // A test directory named to git rm asks with or without -r (git refuses it without, and says why).
  if (sub === 'rm') filesRemoved(parseFlags(rest).operands, true, show(cmd), ctx);
};

judges(import.meta.url, { 'rm unlink': rm });
