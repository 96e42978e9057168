import type { CheckoutView } from '../../shared/index.ts';
import type { CheckoutContext } from './chain-module.ts';
import type { InvoiceRow } from './invoice.repository.ts';
import { invoicePriceOf } from './invoice-price.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const stillDue = (amount: bigint, paid: bigint) => (paid >= amount ? 0n : amount - paid);

/**
 * The checkout fields every chain fills the same way, and the amounts a chain's view is built from:
 * what is still due, what the QR code asks for (the rest, once part-paid, so a payer who scans
 * again does not overpay), and whether the payment is already seen (so the payer is not asked to
 * pay again while confirmations come).
 */
export function checkoutCommon(row: InvoiceRow, context: CheckoutContext, amount: bigint) {
  const explorer = context.explorerUrl;
  const due = stillDue(amount, context.paid);
  const common = {
    invoice_id: row.invoice_id,
    shop_name: context.shopName,
    status: row.status as CheckoutView['status'],
    receive_address: row.receive_address,
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    tx_hash: row.tx_hash,
    paid_at: row.paid_at === null ? null : iso(row.paid_at),
    verify_url: explorer ? `${explorer}/address/${row.receive_address}` : null,
    tx_url: explorer && row.tx_hash ? `${explorer}/tx/${row.tx_hash}` : null,
    // Filled by the edition from the payment methods it serves (core/x402).
    x402_url: null,
    memo: row.memo,
    // Only once paid: before, the page must not be a way to the shop's "paid" page without paying.
    redirect_url: row.status === 'confirmed' ? row.redirect_url : null,
    server_time: iso(context.now),
    ...invoicePriceOf(row),
  };
  return {
    common,
    due,
    askFor: row.status === 'partial' ? due : amount,
    seen: row.status === 'pending' && context.paid > 0n && due === 0n,
  };
}
