import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import { enqueueEvent, type NewEvent } from '../../events/outbox.ts';
import type { InvoiceRow } from '../../invoices/invoice.repository.ts';
import { invoiceShopFields } from '../../invoices/shop-fields.ts';
import type { StatusFeed } from '../../invoices/status-feed.ts';
import type { CoreTables } from '../../schema.ts';
import { satsToBtc } from '../amount.ts';
import { preimageMatches } from './bolt11-check.ts';
import { btcOrphanEvent } from '../orphan-event.ts';

/** A settlement as the merchant's wallet reported it (payment_received, or lookup_invoice once settled). */
export interface ReportedSettlement {
  paymentHash: string;
  preimage: string;
  amountMsat: bigint;
  /** When the wallet says it settled (epoch ms); null when it did not say. */
  settledAt: number | null;
}

/**
 * What became of a report: `confirmed`, `partial` (less than the amount: wallets that accept any
 * amount), `overpayment` (the invoice was already complete or had ended), `duplicate` (this payment
 * hash was recorded before: a replay changes nothing), `unknown` (no invoice of the merchant has this
 * payment hash) or `refused` (the preimage does not hash to the payment hash: nothing is believed).
 */
/** A settlement as a NIP-47 transaction reports it (payment_received, lookup_invoice); null without a preimage or a positive amount. */
export function reportOf(transaction: { payment_hash?: unknown; preimage?: unknown; amount?: unknown; settled_at?: unknown }): ReportedSettlement | null {
  const { payment_hash: paymentHash, preimage, amount, settled_at: settledAt } = transaction;
  if (typeof paymentHash !== 'string' || typeof preimage !== 'string' || !Number.isSafeInteger(amount) || (amount as number) <= 0) return null;
  return { paymentHash, preimage, amountMsat: BigInt(amount as number), settledAt: Number.isSafeInteger(settledAt) ? (settledAt as number) * 1000 : null };
}

export type SettlementOutcome = 'confirmed' | 'partial' | 'overpayment' | 'duplicate' | 'unknown' | 'refused';

export const LIGHTNING_VERIFICATION = 'own-wallet';

export interface LightningSettlementDeps {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Credits one Lightning payment to the merchant's invoice with that payment hash, once: the preimage
 * must hash to the payment hash (proof the payment happened), the record is keyed by the payment
 * hash (a replayed or repeated report is a duplicate), and the move is guarded by the status it was
 * decided from, so an on-chain confirmation that got there first turns this one into an overpayment.
 */
export async function settleLightningPayment(deps: LightningSettlementDeps, merchantId: string, report: ReportedSettlement): Promise<SettlementOutcome> {
  if (!preimageMatches(report.preimage, report.paymentHash)) return 'refused';
  const paymentHash = report.paymentHash.toLowerCase();
  const now = deps.clock.now();
  return deps.feed.transaction(deps.db, async (trx, changed) => {
    const invoice = await trx.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId).where('payment_hash', '=', paymentHash).executeTakeFirst();
    if (!invoice) return 'unknown';
    const recorded = await trx
      .insertInto('ln_settlements')
      .values({
        merchant_id: merchantId,
        payment_hash: paymentHash,
        invoice_id: invoice.invoice_id,
        preimage: report.preimage.toLowerCase(),
        amount_msat: report.amountMsat.toString(),
        settled_at: report.settledAt,
        recorded_at: now,
        outcome: 'pending',
      })
      .onConflict((oc) => oc.columns(['merchant_id', 'payment_hash']).doNothing())
      .returning('payment_hash')
      .executeTakeFirst();
    if (!recorded) return 'duplicate';
    const outcome = await applySettlement(trx, invoice, report, now);
    await trx.updateTable('ln_settlements').set({ outcome }).where('merchant_id', '=', merchantId).where('payment_hash', '=', paymentHash).execute();
    if (outcome === 'confirmed' || outcome === 'partial') changed({ invoice_id: invoice.invoice_id, merchant_id: merchantId, status: outcome, at: now });
    return outcome;
  });
}

/** Whether the invoice still takes this payment: open, or ended by expiry after the wallet settled in time. */
function takesPayment(invoice: InvoiceRow, report: ReportedSettlement): boolean {
  if (invoice.status === 'pending' || invoice.status === 'partial') return true;
  return invoice.status === 'expired' && report.settledAt !== null && report.settledAt <= invoice.expires_at;
}

async function applySettlement(trx: Transaction<CoreTables>, invoice: InvoiceRow, report: ReportedSettlement, now: number): Promise<'confirmed' | 'partial' | 'overpayment'> {
  const dueMsat = BigInt(invoice.amount_sats ?? 0) * 1000n;
  if (takesPayment(invoice, report)) {
    const complete = report.amountMsat >= dueMsat;
    const moved = await trx
      .updateTable('invoices')
      .set(
        complete
          ? { status: 'confirmed', verification: LIGHTNING_VERIFICATION, payment_method: 'lightning', tx_hash: null, paid_at: now, updated_at: now }
          : { status: 'partial', updated_at: now },
      )
      .where('merchant_id', '=', invoice.merchant_id)
      .where('invoice_id', '=', invoice.invoice_id)
      // Guarded by the status it was decided from: whatever changed it since wins, and this one is reported apart.
      .where('status', '=', invoice.status)
      .returning('invoice_id')
      .executeTakeFirst();
    if (moved && complete) {
      await enqueueEvent(trx, confirmedEvent(invoice, report, now));
      return 'confirmed';
    }
    if (moved) return 'partial';
  }
  await enqueueEvent(trx, overpaymentEvent(invoice, report, now));
  return 'overpayment';
}

function confirmedEvent(invoice: InvoiceRow, report: ReportedSettlement, now: number): NewEvent {
  return {
    merchantId: invoice.merchant_id,
    createdAt: now,
    payload: {
      event: 'invoice.confirmed',
      invoice_id: invoice.invoice_id,
      merchant_id: invoice.merchant_id,
      chain: 'btc',
      asset: 'BTC',
      amount: satsToBtc(BigInt(invoice.amount_sats ?? 0)),
      address: invoice.receive_address,
      tx_hash: null,
      confirmations: 0,
      confirmed_at: iso(now),
      verification: LIGHTNING_VERIFICATION,
      payment_method: 'lightning',
      payment_hash: report.paymentHash.toLowerCase(),
      preimage: report.preimage.toLowerCase(),
      ...invoiceShopFields(invoice),
    },
  };
}

/** A Lightning payment to an invoice already complete or ended: the funds are in the merchant's wallet; reported, never credited. */
function overpaymentEvent(invoice: InvoiceRow, report: ReportedSettlement, now: number): NewEvent {
  const payment = { address: invoice.lightning_invoice ?? invoice.receive_address, txHash: null, valueSats: report.amountMsat / 1000n, detectedAt: report.settledAt ?? now, paymentHash: report.paymentHash.toLowerCase() };
  return btcOrphanEvent(invoice, payment, now);
}
