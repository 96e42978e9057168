import { DEFAULT_EXPIRES_IN_S, type CreateInvoiceRequest } from '../../../shared/index.ts';
import { ServiceError } from '../../errors.ts';
import type { ReceivingMethod } from '../../invoices/payment-method.ts';
import { allocateChildIndex, insertInvoice } from '../../invoices/invoice.repository.ts';
import { newBtcInvoiceRow } from './btc-invoice-row.ts';
import { derivationPath, type AccountKey } from '../account-key.ts';
import { rowToCreatedBtcInvoice } from '../btc-invoice.mapper.ts';
import { seenBeforeExpiry, type PaymentView } from '../confirmation-rules.ts';

const lightningNotConfigured = () =>
  new ServiceError('chain_disabled', 'Lightning is not set up for this merchant (a wallet connection: MERCHANT_NWC_URL, or lightning_nwc_url on Cloud); ask for payment_methods ["onchain"] or leave it out.');

/** A merchant's Bitcoin receive method: its account key and where its addresses come from. */
export interface BtcReceiverOptions {
  accountKey: AccountKey;
  explorerUrl: string;
  /** Address of receive-chain child `index`; may be served from a pre-derived buffer or a worker thread. */
  addressAt(index: number): string | Promise<string>;
  /** Told after each allocation, so a buffer can derive ahead of the next request. */
  allocated?(index: number): void;
}

/**
 * Derived address (Bitcoin): each invoice gets the next child address of the merchant's account
 * key, and the outputs paid to it, first seen before its expiry and mined within the grace after it, add up (confirmation-rules.ts:
 * paidInTime, which settlement applies with the block times).
 */
export const btcDerivedAddress: ReceivingMethod<BtcReceiverOptions, PaymentView, CreateInvoiceRequest> = {
  method: 'derived-address',
  offers: (_settings, asset) => asset === 'BTC',
  owns: (invoice) => invoice.child_index !== null,
  matches: (invoice, payment) => seenBeforeExpiry(Number(invoice.expires_at), payment),
  display: () => ({}),
  async receive({ db, clock, merchantId, newInvoiceId, beforeInsert, shopColumns, methodColumns }, btc, request) {
    // Lightning, when the merchant has it, is asked before this and takes its part out of the request.
    if (request.payment_methods?.includes('lightning')) throw lightningNotConfigured();
    const now = clock.now();
    const expiresInS = request.expires_in ?? DEFAULT_EXPIRES_IN_S;
    // The response is built before the commit: whatever fails, the index goes back with the row.
    const created = await db.transaction().execute(async (trx) => {
      await beforeInsert?.(trx);
      const index = await allocateChildIndex(trx, 'btc', btc.accountKey.keyId);
      const place = {
        network: btc.accountKey.network,
        receive_address: await btc.addressAt(index),
        child_index: index,
        derivation_path: derivationPath(btc.accountKey, index),
        key_id: btc.accountKey.keyId,
        ...methodColumns,
      };
      const invoice = newBtcInvoiceRow({ merchantId, newInvoiceId, shopColumns }, request, place, { now, expiresAt: now + expiresInS * 1000 });
      await insertInvoice(trx, invoice);
      return rowToCreatedBtcInvoice(invoice, btc.explorerUrl);
    });
    btc.allocated?.(created.child_index ?? 0);
    return created;
  },
};
