import * as z from 'zod';
import { chainFacts, chainNames } from './chains.ts';
import { InvoiceStatus, ORDER_ID_MAX_LENGTH } from './invoice.ts';

export const INVOICE_LIST_DEFAULT = 25;
export const INVOICE_LIST_MAX = 100;
/** The longest search text and cursor a list query takes (an order id: as long as one can be). */
export const LIST_QUERY_TEXT_MAX = 200;

/** Every asset some chain is paid in (BTC, USDC, USDT). */
export const listAssets = [...new Set(chainNames.flatMap((chain) => chainFacts[chain].assets))] as [string, ...string[]];

/** An ISO 8601 date-time with a zone (`2026-12-01T00:00:00Z`, `…+01:00`), or a date alone, read as 00:00 UTC. */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((text) => Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text));

const text = () => z.string().min(1).max(LIST_QUERY_TEXT_MAX);

/**
 * The query of the invoice lists (listener `GET /invoices`, Cloud `GET /api/v1/invoices`), one value
 * per parameter. Unknown parameters are refused, so a misspelt filter never silently lists everything.
 */
export const InvoiceListQuery = z
  .object({
    limit: z.string().optional(),
    cursor: text().optional(),
    status: InvoiceStatus.optional(),
    chain: z.enum(chainNames).optional(),
    asset: z
      .string()
      .transform((asset) => asset.toUpperCase())
      .pipe(z.enum(listAssets))
      .optional(),
    order_id: z.string().min(1).max(ORDER_ID_MAX_LENGTH).optional(),
    q: text().optional(),
    created_from: instant.optional(),
    created_to: instant.optional(),
    format: z.enum(['json', 'csv']).optional(),
  })
  .strict();
export type InvoiceListQuery = z.output<typeof InvoiceListQuery>;

/** How each list parameter is documented (OpenAPI, reference): one entry per field of the query. */
export const invoiceListParameterDocs: Record<keyof z.input<typeof InvoiceListQuery>, { description: string; jsonSchema: Record<string, unknown> }> = {
  limit: {
    description: `Page size: default ${INVOICE_LIST_DEFAULT}; any other number is clamped to 1-${INVOICE_LIST_MAX} (not refused), text that is not a whole number reads as the default. Ignored by a CSV export, which has every matching invoice.`,
    jsonSchema: { type: 'integer', default: INVOICE_LIST_DEFAULT },
  },
  cursor: { description: 'The `next_cursor` of the previous page: the page after it. Opaque; one this server did not issue is refused (`bad_query`).', jsonSchema: { type: 'string', maxLength: LIST_QUERY_TEXT_MAX } },
  status: { description: 'Only invoices with this stored status.', jsonSchema: { type: 'string', enum: InvoiceStatus.options } },
  chain: { description: 'Only invoices on this chain.', jsonSchema: { type: 'string', enum: chainNames } },
  asset: { description: `Only invoices in this asset (${listAssets.join(', ')}; any case).`, jsonSchema: { type: 'string' } },
  order_id: { description: "Only the invoices of this order reference (the shop's `order_id`, exact; several invoices may share one).", jsonSchema: { type: 'string', minLength: 1, maxLength: ORDER_ID_MAX_LENGTH } },
  q: {
    description: 'Search: the invoices whose id or order id is exactly this, or whose receive address is this in any case.',
    jsonSchema: { type: 'string', maxLength: LIST_QUERY_TEXT_MAX },
  },
  created_from: { description: 'Only invoices created at or after this instant (inclusive): an ISO 8601 date-time with its zone, or a date (00:00 UTC).', jsonSchema: { type: 'string' } },
  created_to: { description: 'Only invoices created before this instant (exclusive), written as `created_from`.', jsonSchema: { type: 'string' } },
  format: {
    description: '`csv`: the whole filtered list as CSV (as `Accept: text/csv`); `json` (default): one page. Wins over `Accept`.',
    jsonSchema: { type: 'string', enum: ['json', 'csv'] },
  },
};

/**
 * The columns of a CSV export, in order: the list entry's fields, then what the shop attached and
 * the fiat price (empty when none). Cloud adds `checkout_url` at the end.
 */
export const invoiceCsvColumns = [
  'invoice_id',
  'chain',
  'asset',
  'amount',
  'receive_address',
  'status',
  'tx_hash',
  'created_at',
  'paid_at',
  'expires_at',
  'order_id',
  'memo',
  'metadata',
  'redirect_url',
  'price_amount',
  'price_currency',
] as const;
export type InvoiceCsvColumn = (typeof invoiceCsvColumns)[number];
