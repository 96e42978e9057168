import type * as z from 'zod';

/** A field kept and still sent or accepted for the clients that use it, beside the field that replaces it. */
export interface Deprecation {
  field: string;
  /** What to use instead, as the descriptions say it (markdown). */
  replacement: string;
  /** Where the field appears. */
  where: string;
}

/** The deprecations of the fields of one place, keyed by field, from what replaces each. */
export function deprecations<F extends string>(where: string, replacements: Record<F, string>): Record<F, Deprecation> {
  return Object.fromEntries(Object.entries<string>(replacements).map(([field, replacement]) => [field, { field, replacement, where }])) as Record<F, Deprecation>;
}

/** OpenAPI marks the field `deprecated`, its description naming the replacement first. */
export function deprecatedField<S extends z.ZodType>(deprecation: Deprecation, schema: S, description: string): S {
  return schema.meta({ deprecated: true, description: `Deprecated: use ${deprecation.replacement}. ${description}` });
}
