// Turns a tool's declared parameters (Zod v4 object or JSON schema) into an OpenAI schema and a validator. Worker-only.
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { JsonSchema } from '../common/tool-definition.js';
import type { ArgsValidator } from './types.js';
import { TetherError } from '../common/errors.js';

const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true });

function isZodType(schema: unknown): schema is z.ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

function fromZod(tool: string, schema: z.ZodType): { parameters: JsonSchema; validate: ArgsValidator } {
  if (!(schema instanceof z.ZodObject)) {
    throw new TetherError(
      'Tool.BadSchema',
      `Tool '${tool}': parameters must be a Zod object (z.object({...})), got ${schema._zod.def.type}`,
    );
  }
  let parameters: JsonSchema;
  try {
    parameters = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  } catch (err) {
    throw new TetherError(
      'Tool.BadSchema',
      `Tool '${tool}': parameters cannot be expressed as JSON schema: ${(err as Error).message}`,
    );
  }
  delete parameters.$schema;
  const validate: ArgsValidator = (args) => {
    const parsed = schema.safeParse(args);
    if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
    return { ok: false, error: z.prettifyError(parsed.error) };
  };
  return { parameters, validate };
}

function fromJsonSchema(tool: string, schema: JsonSchema): { parameters: JsonSchema; validate: ArgsValidator } {
  if (schema.type !== 'object') {
    throw new TetherError('Tool.BadSchema', `Tool '${tool}': a JSON schema for parameters must have "type": "object"`);
  }
  if (!ajv.validateSchema(schema)) {
    throw new TetherError(
      'Tool.BadSchema',
      `Tool '${tool}': malformed JSON schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`,
    );
  }
  let check: ReturnType<typeof ajv.compile>;
  try {
    check = ajv.compile(schema);
  } catch (err) {
    throw new TetherError('Tool.BadSchema', `Tool '${tool}': malformed JSON schema: ${(err as Error).message}`);
  }
  const validate: ArgsValidator = (args) => {
    if (check(args)) return { ok: true, value: args as Record<string, unknown> };
    return { ok: false, error: ajv.errorsText(check.errors, { dataVar: 'arguments' }) };
  };
  return { parameters: structuredClone(schema), validate };
}

/** Refuses anything that is not a usable object schema, naming the tool. */
export function compileParameters(tool: string, schema: unknown): { parameters: JsonSchema; validate: ArgsValidator } {
  if (isZodType(schema)) return fromZod(tool, schema);
  if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
    return fromJsonSchema(tool, schema as JsonSchema);
  }
  throw new TetherError(
    'Tool.BadSchema',
    `Tool '${tool}': schema must be a Zod object or a JSON schema object, got ${schema === null ? 'null' : typeof schema}`,
  );
}
