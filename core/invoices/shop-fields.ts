import type { InvoiceOrderFields, InvoicePrice } from '../../shared/index.ts';
import type { InvoicesTable } from './invoice.tables.ts';
import { invoicePriceOf } from './invoice-price.ts';
import { invoiceOrderFields } from './order-fields.ts';

type ShopRow = Parameters<typeof invoiceOrderFields>[0] & Parameters<typeof invoicePriceOf>[0] & Pick<InvoicesTable, 'invoice_id'>;

/** What every answer and event about one invoice says of the shop's order and its fiat price (null where not given). */
export function invoiceShopFields(row: ShopRow): InvoiceOrderFields & InvoicePrice {
  return { ...invoiceOrderFields(row), ...invoicePriceOf(row) };
}
