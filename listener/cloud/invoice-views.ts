import type * as z from 'zod';
import type { CheckoutView, InvoiceListEntry, InvoiceStatus } from '../../shared/index.ts';
import { unitsToDecimal } from '../base/amount.ts';
import { erc20TransferUri } from '../base/eip681.ts';
import { satsToBtc } from '../btc/amount.ts';
import { bip21Uri } from '../btc/bip21.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(Number(ms)));

export function amountText(row: InvoiceRow): string {
  return row.chain === 'btc' ? satsToBtc(Number(row.amount_sats ?? 0)) : unitsToDecimal(BigInt(row.amount_units ?? '0'));
}

export function listEntry(row: InvoiceRow): z.infer<typeof InvoiceListEntry> {
  return {
    invoice_id: row.invoice_id,
    chain: row.chain,
    asset: row.asset,
    amount: amountText(row),
    receive_address: row.receive_address,
    status: row.status as InvoiceStatus,
    tx_hash: row.tx_hash,
    created_at: iso(Number(row.created_at)),
    paid_at: isoOrNull(row.paid_at),
    expires_at: iso(Number(row.expires_at)),
  };
}

/** Explorer base of an invoice's chain and network (`<base>/address/…`, `<base>/tx/…`). */
export type ExplorerOf = (row: InvoiceRow) => string;

/** The public checkout view: display fields only, never a key, secret or email. */
export function checkoutView(row: InvoiceRow, shopName: string, explorer: ExplorerOf): z.infer<typeof CheckoutView> {
  const base = explorer(row);
  const common = {
    invoice_id: row.invoice_id,
    shop_name: shopName,
    chain: row.chain,
    asset: row.asset,
    status: row.status as InvoiceStatus,
    receive_address: row.receive_address,
    expires_at: iso(Number(row.expires_at)),
    created_at: iso(Number(row.created_at)),
    tx_hash: row.tx_hash,
    paid_at: isoOrNull(row.paid_at),
    verify_url: `${base}/address/${row.receive_address}`,
    tx_url: row.tx_hash ? `${base}/tx/${row.tx_hash}` : null,
  };
  if (row.chain === 'btc') {
    const amountBtc = amountText(row);
    return { ...common, amount_btc: amountBtc, qr_uri: bip21Uri(row.receive_address, amountBtc, row.memo) };
  }
  const units = BigInt(row.amount_units ?? '0');
  return {
    ...common,
    amount_usdc: unitsToDecimal(units),
    amount_usdc_units: Number(units),
    ...(row.nonce !== null ? { nonce: Number(row.nonce) } : {}),
    qr_uri: erc20TransferUri(row.token_address!, Number(row.network), row.receive_address, units),
  };
}
