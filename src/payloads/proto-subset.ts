// The part of Temporal's API schema the lean read path needs: the named messages and every type they reach, as a
// protobufjs JSON descriptor (a few percent of the whole, so it loads in milliseconds). Worker-only.
import type { ReflectionObject, Root, Type } from 'protobufjs';

/** The request and response messages of the calls the lean reader makes (src/temporal/lean/lean-reader.ts). */
export const LEAN_MESSAGES = [
  'ListWorkflowExecutions',
  'DescribeWorkflowExecution',
  'QueryWorkflow',
  'GetWorkflowExecutionHistory',
].flatMap((m) => [`temporal.api.workflowservice.v1.${m}Request`, `temporal.api.workflowservice.v1.${m}Response`]);

type Descriptor = Record<string, unknown>;

const isType = (o: ReflectionObject | null): o is Type => o !== null && 'fieldsArray' in o;

/**
 * The descriptor of `names` and their closure, nested by package as protobufjs's `Root.fromJSON` reads it. Types
 * nested in a message come with it (its own `toJSON`), so only top-level ones are placed.
 */
export function protoSubset(root: Root, names: readonly string[] = LEAN_MESSAGES): Descriptor {
  const reached = new Map<string, ReflectionObject>();
  const visit = (o: ReflectionObject | null): void => {
    if (o === null || reached.has(o.fullName)) return;
    reached.set(o.fullName, o);
    if (!isType(o)) return;
    o.resolveAll();
    for (const f of o.fieldsArray) visit(f.resolvedType);
    for (const n of o.nestedArray) visit(n);
    if (isType(o.parent)) visit(o.parent);
  };
  for (const name of names) {
    const found = root.lookup(name);
    if (!found) throw new Error(`the Temporal API has no message ${name}`);
    visit(found);
  }
  const out: Descriptor = {};
  for (const [fullName, o] of reached) {
    if (isType(o.parent)) continue;
    const path = fullName.replace(/^\./, '').split('.');
    let ns = out;
    for (const part of path.slice(0, -1)) {
      const nested = (ns.nested ??= {}) as Descriptor;
      ns = (nested[part] ??= {}) as Descriptor;
    }
    ((ns.nested ??= {}) as Descriptor)[path.at(-1)!] = o.toJSON();
  }
  return out;
}
