import * as z from 'zod';

/**
 * An MCP input shape that advertises each field's JSON Schema from the contract but lets any value
 * through. The listener validates the request itself and answers with a stable error code
 * (`invalid_amount`, `bad_body`, ...); checking here first would replace that code with the SDK's
 * generic "Input validation error" and could drift from what the listener (or Cloud) accepts.
 */
export function validatedByListener<Shape extends z.ZodRawShape>(shape: Shape): { [K in keyof Shape]: z.ZodOptional<z.ZodUnknown> } {
  const fields = Object.entries(shape).map(([name, field]) => {
    // The SDK renders input schemas as draft-07; the field's own schema is rendered the same way.
    const { $schema: _, definitions, ...jsonSchema } = z.toJSONSchema(field, { target: 'draft-7', io: 'input' });
    return [name, z.unknown().optional().meta(definitions ? (inlineDefinitions(jsonSchema, definitions as Record<string, unknown>) as Record<string, unknown>) : jsonSchema)];
  });
  return Object.fromEntries(fields) as { [K in keyof Shape]: z.ZodOptional<z.ZodUnknown> };
}

const DEFINITION_REF = '#/definitions/';

/**
 * A JSON Schema with each `$ref` into `definitions` replaced by the definition itself. A field
 * whose schema has a contract id (PriceCurrency) renders as a reference into its own
 * `definitions`; inside a tool's input schema that reference would point at the tool's root,
 * where no definitions are, so the definition is written in its place.
 */
export function inlineDefinitions(node: unknown, definitions: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineDefinitions(item, definitions));
  if (typeof node !== 'object' || node === null) return node;
  const { $ref: ref, ...rest } = node as Record<string, unknown>;
  const inlinedRest = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlineDefinitions(value, definitions)]));
  if (typeof ref !== 'string' || !ref.startsWith(DEFINITION_REF)) return ref === undefined ? inlinedRest : { $ref: ref, ...inlinedRest };
  return { ...(inlineDefinitions(definitions[ref.slice(DEFINITION_REF.length)], definitions) as Record<string, unknown>), ...inlinedRest };
}
