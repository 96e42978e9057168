import { DEFAULT_EXPIRES_IN_S, type BtcNetwork, type BtcPaymentMethod, type CreateInvoiceRequest } from '../../../shared/index.ts';
import { ServiceError } from '../../errors.ts';
import { requiredAmount } from '../../invoices/amount-error.ts';
import type { ChainReceiver, InvoiceCreation } from '../../invoices/chain-adapter.ts';
import { insertInvoice } from '../../invoices/invoice.repository.ts';
import { newBtcInvoiceRow } from './btc-invoice-row.ts';
import { rowToCreatedBtcInvoice } from '../btc-invoice.mapper.ts';
import { LightningConnectionRefused, type IssuedInvoice, type LightningWallet } from '../lightning/lightning-wallet.ts';

/** How soon a client may ask again after the wallet gave no Lightning invoice. */
const LIGHTNING_RETRY_AFTER_S = 10;

export interface LightningReceiverOptions {
  /** The merchant's on-chain receiver (its account key), or null when it takes Lightning only. */
  onchain: ChainReceiver | null;
  wallet: Pick<LightningWallet, 'issue'>;
  network: BtcNetwork;
  explorerUrl: string;
}

const onchainDisabled = () => new ServiceError('chain_disabled', 'On-chain Bitcoin is not configured for this merchant (an account key, MERCHANT_BTC_XPUB); ask for payment_methods ["lightning"].');

/**
 * Bitcoin invoices payable over Lightning, through the merchant's own wallet (Nostr Wallet Connect),
 * beside or instead of the on-chain address. The wallet is asked first, outside any transaction; a
 * wallet that does not answer leaves an on-chain-only invoice, or 503 lightning_unavailable when
 * Lightning was the only method asked for. The invoice and its BOLT11 are stored in one insert.
 */
export function lightningReceiver(options: LightningReceiverOptions): ChainReceiver {
  return {
    async create(creation, request) {
      const wanted: BtcPaymentMethod[] = request.payment_methods ?? (options.onchain ? ['onchain', 'lightning'] : ['lightning']);
      if (wanted.includes('onchain') && !options.onchain) throw onchainDisabled();
      const expiresAt = creation.clock.now() + (request.expires_in ?? DEFAULT_EXPIRES_IN_S) * 1000;
      const issued = wanted.includes('lightning') ? await issueOrNot(creation, request, expiresAt, wanted.length === 1) : null;
      if (!wanted.includes('onchain')) return storeLightningOnly(creation, request, issued!, expiresAt, options);
      const methodColumns = issued ? { lightning_invoice: issued.bolt11, payment_hash: issued.paymentHash } : {};
      return options.onchain!.create({ ...creation, methodColumns }, { ...request, payment_methods: ['onchain'] });
    },
  };

  async function issueOrNot(creation: InvoiceCreation, request: CreateInvoiceRequest, expiresAt: number, required: boolean): Promise<IssuedInvoice | null> {
    try {
      return await options.wallet.issue({ amountSats: requiredAmount(request.amount_sats, 'amount_sats', 'new'), description: creation.shopColumns.memo, expiresAt });
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (!required) return null;
      // A refused connection is the merchant's to fix in the wallet: say what, as its check does.
      const why = error instanceof LightningConnectionRefused ? `The merchant's Lightning connection is not used: ${error.message}` : "The merchant's Lightning wallet gave no usable invoice in time.";
      throw new ServiceError('lightning_unavailable', `${why} Nothing was stored. Retry shortly, or allow on-chain payment.`, { retryAfterS: LIGHTNING_RETRY_AFTER_S });
    }
  }
}

/** A Lightning-only invoice: no address, so receive_address repeats the BOLT11 and no child index is drawn. */
async function storeLightningOnly(creation: InvoiceCreation, request: CreateInvoiceRequest, issued: IssuedInvoice, expiresAt: number, options: LightningReceiverOptions) {
  const { db, clock, beforeInsert } = creation;
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    await beforeInsert?.(trx);
    const place = { network: options.network, receive_address: issued.bolt11, child_index: null, derivation_path: null, key_id: null, lightning_invoice: issued.bolt11, payment_hash: issued.paymentHash };
    const invoice = newBtcInvoiceRow(creation, request, place, { now, expiresAt });
    await insertInvoice(trx, invoice);
    return rowToCreatedBtcInvoice(invoice, options.explorerUrl);
  });
}
