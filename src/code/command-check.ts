// Approval of a tool call an execute_code program asks for (a terminal command with its stdin and the scripts it
// runs, input to a background process): the tool's own gate function and the same verdict the approval activity
// reaches (analysis, then command_allowlist as the worker holds it), decided at once because a running program
// cannot wait for a person. Worker-only.
import { workerAllowlist } from '../approval/allowlist-book.js';
import { assessSubject } from '../approval/assess.js';
import type { CallSubject } from '../detector/engine/subject.js';
import { normalizePath } from '../common/paths.js';
import type { TetherConfig } from '../config/config.js';
import { environmentManager } from '../environments/current.js';
import { readScriptsIn } from '../environments/read-scripts.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolContext } from '../registry/types.js';

async function refusalForSubject(
  subject: CallSubject,
  cwd: string,
  config: TetherConfig,
  ctx?: ToolContext,
): Promise<string | undefined> {
  const read = ctx
    ? (keys: string[]) =>
        environmentManager().use(ctx.taskId, { hostCwd: ctx.cwd, backend: ctx.backend, expected: true }, ({ env }) =>
          readScriptsIn(env, keys, subject.workdir),
        )
    : undefined;
  const allowlist = workerAllowlist()?.entries() ?? config.command_allowlist;
  const { verdict, allowlistedBy } = await assessSubject(subject, cwd, allowlist, { read });
  if (!verdict.dangerous) return undefined;
  if (verdict.tier === 'hardline') {
    const what = verdict.findings
      .filter((f) => f.tier === 'hardline')
      .map((f) => `[${f.rule}] ${f.description}`)
      .join('; ');
    return `Refused: this command is never run, whatever the approval mode: ${what}`;
  }
  if (config.approvals.mode === 'off' || allowlistedBy !== undefined) return undefined;
  const what = verdict.findings.map((f) => `[${f.rule}] ${f.description}`).join('; ');
  return (
    `Refused: this command needs a person's approval (${what}), and execute_code cannot pause for a decision. ` +
    'Run it with the terminal tool directly, outside the program.'
  );
}

/** Why a tool call from inside a program may not run: what the tool says the call would run, judged in the task's environment. */
export async function refusalForCall(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  config: TetherConfig,
): Promise<string | undefined> {
  const entry = registry.get(name);
  const valid = entry?.validate(args);
  if (!entry?.gate || !valid?.ok) return undefined; // dispatch reports bad arguments
  const subject = await entry.gate(valid.value, { taskId: ctx.taskId, cwd: ctx.cwd, backend: ctx.backend });
  if (!subject) return undefined;
  const cwd =
    subject.workdir === undefined
      ? ctx.cwd
      : normalizePath(subject.workdir.startsWith('/') ? subject.workdir : `${ctx.cwd}/${subject.workdir}`);
  return refusalForSubject(subject, cwd, config, entry.environment ? ctx : undefined);
}
