// Tether's search attributes on a namespace: which are missing, registering them through the operator service
// (`tether cluster setup`), and the check every worker makes before it runs workflows that set them. Worker-only.
import type { Connection } from '@temporalio/client';
import { TetherError } from '../common/errors.js';
import { attributeTypeName, TETHER_SEARCH_ATTRIBUTES } from '../common/search-attributes.js';
import type { TemporalSettings } from '../temporal/settings.js';

type OperatorService = Connection['operatorService'];

/** IndexedValueType numbers of the Temporal API (enums/v1/common.proto). */
const INDEXED_TYPE: Record<string, number> = {
  TEXT: 1,
  KEYWORD: 2,
  INT: 3,
  DOUBLE: 4,
  BOOL: 5,
  DATETIME: 6,
  KEYWORD_LIST: 7,
};
const typeOfNumber = (n: number): string => Object.entries(INDEXED_TYPE).find(([, v]) => v === n)?.[0] ?? `type ${n}`;

interface AttributeCheck {
  missing: { name: string; type: string }[];
  /** Registered with another type: cannot be fixed by adding, a person must decide. */
  wrongType: { name: string; type: string; has: string }[];
  present: string[];
}

export async function checkSearchAttributes(operator: OperatorService, namespace: string): Promise<AttributeCheck> {
  const res = await operator.listSearchAttributes({ namespace });
  const custom = res.customAttributes ?? {};
  const out: AttributeCheck = { missing: [], wrongType: [], present: [] };
  for (const k of TETHER_SEARCH_ATTRIBUTES) {
    const has = custom[k.name];
    if (has === undefined || has === null) out.missing.push({ name: k.name, type: k.type });
    else if (Number(has) !== INDEXED_TYPE[k.type])
      out.wrongType.push({ name: k.name, type: k.type, has: typeOfNumber(Number(has)) });
    else out.present.push(k.name);
  }
  return out;
}

const named = (list: { name: string; type: string }[]): string =>
  list.map((a) => `${a.name} (${attributeTypeName(a.type)})`).join(', ');

function wrongTypeLine(check: AttributeCheck, settings: TemporalSettings): string {
  const what = check.wrongType.map((a) => `${a.name} is ${attributeTypeName(a.has)}, not ${attributeTypeName(a.type)}`);
  return `namespace '${settings.namespace}' (TEMPORAL_NAMESPACE) has search attributes of the wrong type: ${what.join('; ')} (remove them with 'temporal operator search-attribute remove', then run 'tether cluster setup')`;
}

/** Registers what is missing; says what it did. Idempotent: a second call adds nothing. */
export async function setupSearchAttributes(
  operator: OperatorService,
  settings: TemporalSettings,
): Promise<{ added: string[]; present: string[] }> {
  const check = await checkSearchAttributes(operator, settings.namespace);
  if (check.wrongType.length > 0) throw new TetherError('Config.Invalid', wrongTypeLine(check, settings), false);
  if (check.missing.length > 0) {
    await operator.addSearchAttributes({
      namespace: settings.namespace,
      searchAttributes: Object.fromEntries(check.missing.map((a) => [a.name, INDEXED_TYPE[a.type]!])),
    });
  }
  return { added: check.missing.map((a) => `${a.name} (${attributeTypeName(a.type)})`), present: check.present };
}

/** The one line a command prints when the namespace lacks tether's search attributes. */
export function missingAttributesLine(settings: TemporalSettings, missing: string): string {
  return `namespace '${settings.namespace}' on ${settings.address} lacks tether's search attributes (${missing}): run 'tether cluster setup' once for this namespace`;
}

/**
 * Before a worker runs workflows: they set these attributes, and on a namespace without them every workflow task
 * would fail. The local dev server tether manages gets them registered on the spot; a configured cluster is
 * refused with the command that fixes it. An operator service the credentials may not use (Temporal Cloud) is
 * not checked.
 */
export async function requireSearchAttributes(
  operator: OperatorService,
  settings: TemporalSettings,
  note: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<void> {
  let check: AttributeCheck;
  try {
    check = await checkSearchAttributes(operator, settings.namespace);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 7 || code === 12 || code === 16) return; // PERMISSION_DENIED, UNIMPLEMENTED, UNAUTHENTICATED
    throw err;
  }
  if (check.wrongType.length > 0) throw new TetherError('Config.Invalid', wrongTypeLine(check, settings), false);
  if (check.missing.length === 0) return;
  if (settings.embedded) {
    const { added } = await setupSearchAttributes(operator, settings);
    note(`Registered tether's search attributes on the local dev server: ${added.join(', ')}.`);
    return;
  }
  throw new TetherError('Config.Invalid', missingAttributesLine(settings, named(check.missing)), false);
}
