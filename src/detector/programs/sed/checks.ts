// Every judgement of a sed command on one reading of it (call.ts); each lives with its threat class's checks. Start
// here when one is judged wrongly (`npm run detector:who -- 'sed ...'`). Pure.
import { sedCiEdit } from '../../checks/ci.js';
import { sedRuns } from '../../checks/escapes.js';
import { sedWrites } from '../../checks/files.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { sedLockEdit } from '../../checks/supply-chain.js';
import { sedTests } from '../../checks/test-tampering.js';
import { sedCall, type SedCheck } from './call.js';

/** What a sed command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly SedCheck[] = [
  sedWrites, // the files edited in place (the write rules)
  sedRuns, // commands the script runs, files it writes (escapes.ts rules)
  sedCiEdit, // a pipeline definition rewritten (ci-*)
  sedLockEdit, // a lockfile rewritten as text (supply-chain)
  sedTests, // tests and checks neutralised (test-tampering)
];

const sed = familyCheck(sedCall, JUDGEMENTS);

judges(import.meta.url, { 'sed gsed': sed }, { claims: true });
