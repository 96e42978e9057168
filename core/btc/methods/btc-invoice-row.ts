import type { CreateInvoiceRequest } from '../../../shared/index.ts';
import { requiredAmount } from '../../invoices/amount-error.ts';
import type { InvoiceCreation } from '../../invoices/chain-adapter.ts';
import type { InvoiceRow } from '../../invoices/invoice.repository.ts';

/** Where a Bitcoin invoice is paid: a derived address (its index, path and key), or a BOLT11 alone. */
export type BtcReceivePlace = Pick<InvoiceRow, 'network' | 'receive_address' | 'child_index' | 'derivation_path' | 'key_id'> &
  Partial<Pick<InvoiceRow, 'lightning_invoice' | 'payment_hash'>>;

/** A new pending Bitcoin invoice row, whichever method places it: the amount, times and shop columns as every method stores them. */
export function newBtcInvoiceRow(creation: Pick<InvoiceCreation, 'merchantId' | 'newInvoiceId' | 'shopColumns'>, request: CreateInvoiceRequest, place: BtcReceivePlace, times: { now: number; expiresAt: number }): InvoiceRow {
  return {
    invoice_id: creation.newInvoiceId(),
    merchant_id: creation.merchantId,
    chain: 'btc',
    asset: 'BTC',
    amount_sats: requiredAmount(request.amount_sats, 'amount_sats', 'new'),
    amount_units: null,
    token_address: null,
    nonce: null,
    amount_usd: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: times.expiresAt,
    created_at: times.now,
    updated_at: times.now,
    address_duplicate_of: null,
    ...creation.shopColumns,
    ...place,
  };
}
