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
    const { $schema: _, ...jsonSchema } = z.toJSONSchema(field, { target: 'draft-7', io: 'input' });
    return [name, z.unknown().optional().meta(jsonSchema)];
  });
  return Object.fromEntries(fields) as { [K in keyof Shape]: z.ZodOptional<z.ZodUnknown> };
}
