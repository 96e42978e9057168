import type { NewEvent } from '../events/outbox.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { satsToBtc } from './amount.ts';

/** What paid a Bitcoin invoice that was already complete or had ended: a transaction output, or a Lightning payment (no transaction). */
export type OrphanPayment =
  | { address: string; txHash: string; valueSats: bigint; detectedAt: number }
  | { address: string; txHash: null; valueSats: bigint; detectedAt: number; paymentHash: string };

/** payment.orphan for a Bitcoin payment credited to no invoice: the funds are in the merchant's wallet, to handle by hand. */
export function btcOrphanEvent(invoice: Pick<InvoiceRow, 'merchant_id'>, payment: OrphanPayment, now: number): NewEvent {
  return {
    merchantId: invoice.merchant_id,
    createdAt: now,
    payload: {
      event: 'payment.orphan',
      chain: 'btc',
      asset: 'BTC',
      token_address: null,
      address: payment.address,
      tx_hash: payment.txHash,
      ...('paymentHash' in payment ? { payment_method: 'lightning' as const, payment_hash: payment.paymentHash } : {}),
      value: satsToBtc(payment.valueSats),
      detected_at: new Date(payment.detectedAt).toISOString(),
    },
  };
}
