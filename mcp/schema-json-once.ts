import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';

type JsonSchemaConverter = StandardSchemaWithJSON['~standard']['jsonSchema'];

const converted = new WeakSet<object>();

/**
 * Makes a tool schema give its JSON Schema from a cache. The 2026-07-28 path builds one server per
 * request, and each server converts a called tool's input and output schemas again (zod's
 * conversion, over a millisecond for an invoice's output schema: most of what a stateless call costs
 * beyond a session's). The schemas are module constants, so their JSON Schema never changes: it is
 * converted once per (direction, options) and each caller gets its own copy to do with as it likes.
 */
export function convertOnce<S extends object>(schema: S): S {
  const standard = (schema as Partial<StandardSchemaWithJSON>)['~standard'];
  if (!standard?.jsonSchema || converted.has(schema)) return schema;
  const { jsonSchema } = standard;
  const cache = new Map<string, Record<string, unknown>>();
  const cached =
    (io: keyof JsonSchemaConverter): JsonSchemaConverter[typeof io] =>
    (options) => {
      const key = `${io} ${JSON.stringify(options)}`;
      let json = cache.get(key);
      if (!json) cache.set(key, (json = jsonSchema[io](options)));
      return structuredClone(json);
    };
  Object.defineProperty(schema, '~standard', { value: { ...standard, jsonSchema: { input: cached('input'), output: cached('output') } }, configurable: true, writable: true, enumerable: false });
  converted.add(schema);
  return schema;
}
