import type { Kysely } from 'kysely';
import type { CheckoutView } from '../../shared/checkout.ts';
import type { BtcNetwork } from '../../shared/index.ts';
import { unitsToDecimal } from '../../core/base/amount.ts';
import { erc20TransferUri } from '../../core/base/eip681.ts';
import { satsToBtc } from '../../core/btc/amount.ts';
import { bip21Uri } from '../../core/btc/bip21.ts';
import { seenUnitsOf } from '../../core/base/partial.ts';
import { seenSatsOf } from '../../core/btc/btc-payment.repository.ts';
import type { CoreTables } from '../../core/schema.ts';
import type { InvoiceRow } from '../../core/invoices/invoice.repository.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export type ViewContext = Omit<RowViewContext, 'paid'>;

interface RowViewContext {
  shopName: string;
  /** Block-explorer base URL per chain; null when the chain is not configured. */
  explorers: { btc: string | null; base: string | null };
  now: number;
  /** Base units (sats, token units) seen toward the invoice so far, at any number of confirmations. */
  paid: bigint;
}

/** A stored invoice's checkout view, with what the payer has sent so far read from the chain records. */
export async function checkoutView(db: Kysely<CoreTables>, row: InvoiceRow, context: ViewContext): Promise<CheckoutView> {
  return rowToCheckoutView(row, { ...context, paid: await paidSoFar(db, row) });
}

async function paidSoFar(db: Kysely<CoreTables>, row: InvoiceRow): Promise<bigint> {
  if (row.chain === 'btc') return BigInt(await seenSatsOf(db, row.merchant_id, row.invoice_id));
  if (row.chain === 'base') return seenUnitsOf(db, row);
  return 0n;
}

const stillDue = (amount: bigint, paid: bigint) => (paid >= amount ? 0n : amount - paid);

export function rowToCheckoutView(row: InvoiceRow, { shopName, explorers, now, paid }: RowViewContext): CheckoutView {
  const explorer = row.chain === 'btc' ? explorers.btc : explorers.base;
  const id = { invoice_id: row.invoice_id, shop_name: shopName };
  const common = {
    status: row.status as CheckoutView['status'],
    receive_address: row.receive_address,
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    tx_hash: row.tx_hash,
    paid_at: row.paid_at === null ? null : iso(row.paid_at),
    verify_url: explorer ? `${explorer}/address/${row.receive_address}` : null,
    tx_url: explorer && row.tx_hash ? `${explorer}/tx/${row.tx_hash}` : null,
    memo: row.memo,
    server_time: iso(now),
  };
  // A part-paid invoice's QR code asks for the rest, so a payer who scans again does not overpay.
  const askFor = (amount: bigint, due: bigint) => (row.status === 'partial' ? due : amount);
  // Confirmations take time: a payer whose payment is already seen must not be asked to pay again.
  const seen = (due: bigint) => row.status === 'pending' && paid > 0n && due === 0n;
  if (row.chain === 'btc') {
    const sats = BigInt(row.amount_sats ?? 0);
    const due = stillDue(sats, paid);
    return {
      ...id,
      chain: 'btc',
      asset: 'BTC',
      network: (row.network ?? 'mainnet') as BtcNetwork,
      ...common,
      amount_btc: satsToBtc(sats),
      amount_due: satsToBtc(due),
      payment_seen: seen(due),
      qr_uri: bip21Uri(row.receive_address, satsToBtc(askFor(sats, due)), row.memo),
    };
  }
  if (row.chain === 'base') {
    const units = BigInt(row.amount_units ?? '0');
    const due = stillDue(units, paid);
    // Base rows keep their chain id in `network`, so the URI stays right even if BASE_CHAIN_ID changes later.
    const qrUri = erc20TransferUri(row.token_address!, Number(row.network), row.receive_address, askFor(units, due));
    return {
      ...id,
      chain: 'base',
      asset: row.asset as 'USDC' | 'USDT',
      ...common,
      amount_usdc: unitsToDecimal(units),
      amount_usdc_units: Number(units),
      amount_due: unitsToDecimal(due),
      payment_seen: seen(due),
      ...(row.nonce !== null ? { nonce: row.nonce } : {}),
      qr_uri: qrUri,
    };
  }
  throw new Error(`no checkout view for chain ${row.chain}`);
}
