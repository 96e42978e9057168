import type { CreateInvoiceRequest, InvoiceOrderFields } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import type { InvoicesTable, InvoiceShopColumns } from './invoice.tables.ts';

/** The columns of what a shop attaches to an invoice: the order reference, metadata, memo and return link. */
type OrderColumns = Pick<InvoiceShopColumns, 'order_id' | 'metadata' | 'memo' | 'redirect_url'>;

/**
 * The order columns of a new invoice, from a request the contract accepted. `loopbackReturnLinks`
 * (false in production): whether a return link may be plain http to a loopback host, which the
 * contract lets through so a shop on a developer's machine can be tried; in production a payer's
 * browser would be sent over plain http, so it is refused.
 */
export function orderColumnsOf(request: CreateInvoiceRequest, loopbackReturnLinks: boolean): OrderColumns {
  const link = request.redirect_url ?? null;
  if (link !== null && !loopbackReturnLinks && new URL(link).protocol !== 'https:') {
    throw new ServiceError('bad_body', 'redirect_url: must be https in production.');
  }
  return {
    order_id: request.order_id ?? null,
    metadata: request.metadata === undefined ? null : JSON.stringify(request.metadata),
    memo: request.memo ?? null,
    redirect_url: link,
  };
}

/** What every answer and event about an invoice says of its order: each field, null when not given. */
export function invoiceOrderFields(row: Pick<InvoicesTable, 'order_id' | 'metadata' | 'memo' | 'redirect_url'>): InvoiceOrderFields {
  return {
    order_id: row.order_id,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    memo: row.memo,
    redirect_url: row.redirect_url,
  };
}
