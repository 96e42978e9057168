import type { BtcInvoice, BtcInvoiceCreated, BtcNetwork, InvoiceStatus } from '../../shared/index.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { invoiceShopFields } from '../invoices/shop-fields.ts';
import { satsToBtc } from './amount.ts';
import { bip21Uri, lightningUri } from './bip21.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function rowToBtcInvoice(row: InvoiceRow): BtcInvoice {
  const sats = requiredAmount(row.amount_sats, 'amount_sats', row.invoice_id);
  return {
    invoice_id: row.invoice_id,
    merchant_id: row.merchant_id,
    chain: 'btc',
    asset: 'BTC',
    receive_address: row.receive_address,
    child_index: row.child_index,
    status: row.status as InvoiceStatus,
    tx_hash: row.tx_hash,
    paid_at: isoOrNull(row.paid_at),
    verification: row.verification,
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    amount_btc: satsToBtc(sats),
    amount_sats: sats,
    network: row.network as BtcNetwork,
    ...invoiceShopFields(row),
    lightning_invoice: row.lightning_invoice ?? null,
    payment_hash: row.payment_hash ?? null,
    payment_method: (row.payment_method ?? null) as BtcInvoice['payment_method'],
    // Bitcoin has no x402 payment method.
    x402_url: null,
  };
}

export function rowToCreatedBtcInvoice(row: InvoiceRow, explorerUrl: string): BtcInvoiceCreated {
  const invoice = rowToBtcInvoice(row);
  return {
    ...invoice,
    derivation_path: row.derivation_path ?? '',
    qr_uri: paymentUriOf(row, invoice.amount_btc),
    // A Lightning payment leaves nothing on a block explorer to look up: the explorer's front page.
    verify_url: isLightningOnly(row) ? explorerUrl : `${explorerUrl}/address/${invoice.receive_address}`,
  };
}

/** A Lightning-only invoice has no address: its receive_address repeats the BOLT11. */
export const isLightningOnly = (row: Pick<InvoiceRow, 'child_index' | 'lightning_invoice'>): boolean => row.child_index === null && Boolean(row.lightning_invoice);

/** BIP-21 (unified with the BOLT11 when the invoice has one), or `lightning:` for a Lightning-only invoice. */
export function paymentUriOf(row: Pick<InvoiceRow, 'child_index' | 'lightning_invoice' | 'receive_address' | 'memo'>, amountBtc: string): string {
  if (isLightningOnly(row)) return lightningUri(row.lightning_invoice!);
  return bip21Uri(row.receive_address, amountBtc, row.memo, row.lightning_invoice);
}
