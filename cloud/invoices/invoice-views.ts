import type * as z from 'zod';
import type { InvoiceListEntry, InvoiceStatus } from '../../shared/index.ts';
import { chainIn } from '../../core/chain-definition.ts';
import type { ChainModule } from '../../core/invoices/chain-module.ts';
import type { InvoiceRow } from '../../core/invoices/invoice.repository.ts';
import { invoiceOrderFields } from '../../core/invoices/order-fields.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(Number(ms)));

/**
 * The invoice with its hosted page, as every answer about one invoice carries it (create, read):
 * `checkout_url` is present when hosted checkout is enabled.
 */
export function withCheckoutUrl<Invoice extends { invoice_id: string }>(invoice: Invoice, checkoutUrl: (invoiceId: string) => string | null): Invoice & { checkout_url?: string } {
  const url = checkoutUrl(invoice.invoice_id);
  return url ? { ...invoice, checkout_url: url } : invoice;
}

export function amountText(chains: readonly ChainModule[], row: InvoiceRow): string {
  return chainIn(chains, row.chain).amountText(row);
}

export function listEntry(chains: readonly ChainModule[], row: InvoiceRow): z.infer<typeof InvoiceListEntry> {
  return {
    invoice_id: row.invoice_id,
    chain: row.chain,
    asset: row.asset,
    amount: amountText(chains, row),
    receive_address: row.receive_address,
    status: row.status as InvoiceStatus,
    tx_hash: row.tx_hash,
    created_at: iso(Number(row.created_at)),
    paid_at: isoOrNull(row.paid_at),
    expires_at: iso(Number(row.expires_at)),
    ...invoiceOrderFields(row),
  };
}
