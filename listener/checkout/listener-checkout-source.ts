import type { Kysely } from 'kysely';
import type { CheckoutView } from '../../shared/checkout.ts';
import { unitsToDecimal } from '../base/amount.ts';
import { erc20TransferUri } from '../base/eip681.ts';
import { satsToBtc } from '../btc/amount.ts';
import { bip21Uri } from '../btc/bip21.ts';
import { seenSatsOf } from '../btc/btc-payment.repository.ts';
import type { Clock } from '../clock.ts';
import type { Tables } from '../db/tables.ts';
import type { InvoiceService } from '../invoices/invoice.service.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { CheckoutSource } from './checkout-source.ts';

export interface ListenerCheckoutDeps {
  invoices: Pick<InvoiceService, 'find'>;
  db: Kysely<Tables>;
  merchantId: string;
  clock: Clock;
  shopName: string;
  /** Block-explorer base URL per chain; null when the chain is not configured. */
  explorers: { btc: string | null; base: string | null };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Checkout views of the listener's own invoices, read (and lazily expired) like GET /invoice/:id. */
export function createListenerCheckoutSource(deps: ListenerCheckoutDeps): CheckoutSource {
  return {
    async view(invoiceId) {
      const row = await deps.invoices.find(invoiceId);
      // Bitcoin confirmations take minutes: a payer whose payment is already seen must not be asked to pay again.
      const paymentSeen =
        row.chain === 'btc' && row.status === 'pending' && (await seenSatsOf(deps.db, deps.merchantId, row.invoice_id)) >= (row.amount_sats ?? 0);
      return rowToCheckoutView(row, { shopName: deps.shopName, explorers: deps.explorers, now: deps.clock.now(), paymentSeen });
    },
  };
}

interface ViewContext {
  shopName: string;
  explorers: ListenerCheckoutDeps['explorers'];
  now: number;
  paymentSeen: boolean;
}

export function rowToCheckoutView(row: InvoiceRow, { shopName, explorers, now, paymentSeen }: ViewContext): CheckoutView {
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
    server_time: iso(now),
  };
  if (row.chain === 'btc') {
    const amountBtc = satsToBtc(row.amount_sats ?? 0);
    return { ...id, chain: 'btc', asset: 'BTC', ...common, amount_btc: amountBtc, payment_seen: paymentSeen, qr_uri: bip21Uri(row.receive_address, amountBtc, row.memo) };
  }
  if (row.chain === 'base') {
    const units = BigInt(row.amount_units ?? '0');
    // Base rows keep their chain id in `network`, so the URI stays right even if BASE_CHAIN_ID changes later.
    const qrUri = erc20TransferUri(row.token_address!, Number(row.network), row.receive_address, units);
    return {
      ...id,
      chain: 'base',
      asset: row.asset as 'USDC' | 'USDT',
      ...common,
      amount_usdc: unitsToDecimal(units),
      amount_usdc_units: Number(units),
      ...(row.nonce !== null ? { nonce: row.nonce } : {}),
      qr_uri: qrUri,
    };
  }
  throw new Error(`no checkout view for chain ${row.chain}`);
}
