import type { InvoicePrice, PriceCurrency } from '../../shared/index.ts';
import type { InvoiceShopColumns } from './invoice.tables.ts';

/** The price part of an invoice's answers (API, checkout view, invoice.confirmed) from its stored columns: all null when priced in its asset. */
export function invoicePriceOf(row: Pick<InvoiceShopColumns, 'price_amount' | 'price_currency' | 'rate' | 'rate_sources' | 'rate_at'>): InvoicePrice {
  return {
    price_amount: row.price_amount,
    price_currency: row.price_currency as PriceCurrency | null,
    rate: row.rate,
    rate_sources: row.rate_sources === null ? null : (JSON.parse(row.rate_sources) as string[]),
    rate_at: row.rate_at === null ? null : new Date(Number(row.rate_at)).toISOString(),
  };
}
