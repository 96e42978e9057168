import type * as z from 'zod';

/**
 * Every deprecated field: kept and still sent for the clients that read it, beside the
 * chain-neutral field that replaces it. OpenAPI, llms.txt and docs/reference.md name them from here.
 */
export const deprecatedFields = [
  { field: 'amount_usdc', replacement: '`amount_token`', where: 'EVM invoices and checkout views' },
  { field: 'amount_usdc_units', replacement: '`amount_token_units`', where: 'EVM invoices and checkout views' },
  { field: 'btc_xpub', replacement: 'a `receive_methods` entry `{"chain": "btc", "xpub": …}`', where: 'POST /api/v1/signup' },
  { field: 'base_xpub', replacement: 'a `receive_methods` entry `{"chain": "base", "xpub": …}`', where: 'POST /api/v1/signup' },
  { field: 'base_address', replacement: 'a `receive_methods` entry `{"chain": "base", "address": …}`', where: 'POST /api/v1/signup' },
  { field: 'base', replacement: '`chains.base.evm`', where: 'GET /health' },
  { field: 'evm_chains', replacement: '`chains.<chain>.evm`', where: 'GET /health' },
  { field: 'btc_source', replacement: '`chains.btc.bitcoin.source`', where: 'GET /health' },
  { field: 'btc_source_error', replacement: '`chains.btc.bitcoin.source_error`', where: 'GET /health' },
  { field: 'btc_progress', replacement: '`chains.btc.progress`', where: 'GET /health' },
  { field: 'btc_headers', replacement: '`chains.btc.bitcoin.headers`', where: 'GET /health' },
  { field: 'btc_watch', replacement: '`chains.btc.bitcoin.watch`', where: 'GET /health' },
  { field: 'btc_gap', replacement: '`chains.btc.bitcoin.gap`', where: 'GET /health' },
] as const;
export type DeprecatedFieldName = (typeof deprecatedFields)[number]['field'];

/** OpenAPI marks the field `deprecated`, its description naming the replacement first. */
export function deprecatedField<S extends z.ZodType>(field: DeprecatedFieldName, schema: S, description: string): S {
  const { replacement } = deprecatedFields.find((entry) => entry.field === field)!;
  return schema.meta({ deprecated: true, description: `Deprecated: use ${replacement}. ${description}` });
}
