import { INVOICE_LIST_DEFAULT, INVOICE_LIST_MAX, InvoiceListQuery, type InvoiceStatus } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';

/** What an invoice list keeps: each given filter narrows it. Times are epoch ms. */
export interface InvoiceFilters {
  status?: InvoiceStatus;
  chain?: string;
  asset?: string;
  orderId?: string;
  /** An invoice id or order id (exact), or a receive address (any case). */
  q?: string;
  /** Inclusive. */
  createdFrom?: number;
  /** Exclusive. */
  createdTo?: number;
}

/** Where a page starts: after this invoice, in the list's order (created_at, then invoice_id, both descending). */
export interface ListPosition {
  createdAt: number;
  invoiceId: string;
}

export interface ListRequest {
  filters: InvoiceFilters;
  limit: number;
  after: ListPosition | null;
  format: 'json' | 'csv' | null;
}

/** `limit`: default 25, anything else clamped to 1-100 (text that is not a whole number reads as the default). */
function clampListLimit(text: unknown): number {
  const n = typeof text === 'string' && /^-?\d+$/.test(text.trim()) ? Number(text) : INVOICE_LIST_DEFAULT;
  return Math.min(INVOICE_LIST_MAX, Math.max(1, n));
}

/** The opaque cursor of a position: base64url of a JSON pair, so a client has nothing to build or parse. */
export const encodeCursor = (position: ListPosition): string => Buffer.from(JSON.stringify([position.createdAt, position.invoiceId])).toString('base64url');

/** The position of a cursor this server issued, or null for anything else. */
function decodeCursor(cursor: string): ListPosition | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const pair: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(pair) || pair.length !== 2) return null;
    const [createdAt, invoiceId] = pair;
    return Number.isSafeInteger(createdAt) && createdAt >= 0 && typeof invoiceId === 'string' && invoiceId.length > 0 ? { createdAt, invoiceId } : null;
  } catch {
    return null;
  }
}

const refuse = (message: string) => new ServiceError('bad_query', message);

/**
 * The list request of a query string (`ctx.query`): every parameter known and given once, every
 * value well-formed, else `bad_query` naming the parameter. `limit` is clamped, never refused.
 */
export function parseListQuery(query: Readonly<Record<string, unknown>>): ListRequest {
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw refuse(`Query parameter ${name} is given more than once.`);
  }
  const parsed = InvoiceListQuery.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const names = issue.code === 'unrecognized_keys' ? issue.keys : issue.path.map(String);
    const what = issue.code === 'unrecognized_keys' ? `Unknown query parameter ${names.join(', ')}` : `Query parameter ${names.join('.')} is not valid`;
    throw refuse(`${what}; see the parameters of GET /invoices in the API reference.`);
  }
  const { limit, cursor, status, chain, asset, order_id, q, created_from, created_to, format } = parsed.data;
  const after = cursor === undefined ? null : decodeCursor(cursor);
  if (cursor !== undefined && !after) throw refuse('Query parameter cursor is not one this server issued: pass a next_cursor as it came.');
  const filters: InvoiceFilters = { status, chain, asset, orderId: order_id, q, createdFrom: created_from, createdTo: created_to };
  return { filters, limit: clampListLimit(limit), after, format: format ?? null };
}
