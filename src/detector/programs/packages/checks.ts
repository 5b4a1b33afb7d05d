// Every judgement of a package manager's command (npm, pip, cargo, gem, apt, brew, ...) on one reading of it
// (call.ts); each lives with its threat class's checks. Start here when one is judged wrongly (detector:who). Pure.
import { packagePublish } from '../../checks/publish.js';
import { familyCheck, judges } from '../../checks/registry.js';
import type { Check } from '../../checks/types.js';
import { packageManagerVerbs } from '../../checks/resource.js';
import { packageSettings } from '../../checks/settings.js';
import { composerConfig, goEnv, packageInstall, packageJsonSet } from '../../checks/supply-chain.js';
import { packageScriptsNoop } from '../../checks/test-tampering.js';
import { PROJECT_MANAGERS, SYSTEM_MANAGERS, packageCall, type PackageCheck } from './call.js';

/** What a package manager's command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly PackageCheck[] = [
  packageSettings, // registries, indexes and TLS checks set through `config` (source-redirect, security-posture)
  packagePublish, // a package sent to its registry (package-publish)
  packageScriptsNoop, // `pkg set scripts.test=…` made a no-op (test-tampering)
  packageInstall, // look-alike names, untrusted indexes, checks switched off (supply-chain)
  packageJsonSet, // install scripts and dependencies pointed at fetched code (supply-chain)
  composerConfig, // composer's own settings verbs (security-posture, source-redirect)
  goEnv, // `go env -w GOPROXY=… GOSUMDB=off` (source-redirect, security-posture)
  packageManagerVerbs, // `npm exec X` judged as X; packages withdrawn, publishing rights given (package-remove, access-grant)
];

const packages = familyCheck(packageCall, JUDGEMENTS);

/** `corepack pnpm publish`: corepack runs the package manager named, which is judged as itself. */
const corepack: Check = (cmd, io, ctx) => {
  if (PROJECT_MANAGERS.includes(cmd.args[0]?.text ?? '')) ctx.argv(cmd.args, io);
};

judges(
  import.meta.url,
  { [[...PROJECT_MANAGERS, ...SYSTEM_MANAGERS].join(' ')]: packages, corepack },
  { claims: true },
);
