import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { enqueueEvent } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import { satsToBtc } from './amount.ts';
import {
  invoicesToSettle,
  markReported,
  paymentsOf,
  toPaymentView,
} from './btc-payment.repository.ts';
import { decideOpenInvoice, orphansToReport, type PaymentView } from './confirmation-rules.ts';

const OPEN = ['pending', 'partial'];
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Applies the confirmation rules to every invoice that has payments the merchant was not told
 * about. Each status move and its event are written in one transaction, guarded by the status read,
 * so a concurrent change (or a second pass) can never confirm or report twice.
 */
export async function settleInvoices(db: Kysely<Tables>, merchantId: string, tipHeight: number, now: number, logger: Logger): Promise<void> {
  const invoiceIds = await invoicesToSettle(db, merchantId);
  if (invoiceIds.length === 0) return;
  const invoices = await db
    .selectFrom('invoices')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('invoice_id', 'in', invoiceIds)
    .execute();
  const payments = new Map<string, PaymentView[]>();
  for (const row of await paymentsOf(db, merchantId, invoiceIds)) {
    const list = payments.get(row.invoice_id) ?? [];
    list.push(toPaymentView(row));
    payments.set(row.invoice_id, list);
  }

  for (const invoice of invoices) {
    const rows = payments.get(invoice.invoice_id) ?? [];
    const amountSats = BigInt(invoice.amount_sats ?? 0);
    const expiresAt = Number(invoice.expires_at);
    if (OPEN.includes(invoice.status)) {
      const decision = decideOpenInvoice({ amountSats, expiresAt, status: invoice.status }, rows, tipHeight, now);
      if (decision.status === 'confirmed') {
        const counted = rows.filter((p) => p.status !== 'gone' && p.firstSeenAt < expiresAt);
        await db.transaction().execute(async (trx) => {
          const moved = await trx
            .updateTable('invoices')
            .set({ status: 'confirmed', tx_hash: decision.txHash, paid_at: now, updated_at: now })
            .where('merchant_id', '=', merchantId)
            .where('invoice_id', '=', invoice.invoice_id)
            .where('status', '=', invoice.status)
            .executeTakeFirst();
          if (moved.numUpdatedRows !== 1n) return;
          await markReported(trx, merchantId, counted);
          await enqueueEvent(trx, {
            merchantId,
            createdAt: now,
            payload: {
              event: 'invoice.confirmed',
              invoice_id: invoice.invoice_id,
              merchant_id: merchantId,
              chain: 'btc',
              asset: 'BTC',
              amount: satsToBtc(amountSats),
              address: invoice.receive_address,
              tx_hash: decision.txHash,
              confirmations: decision.confirmations,
              confirmed_at: iso(now),
            },
          });
        });
        const paid = counted.reduce((sum, p) => sum + p.valueSats, 0n);
        logger.info('btc invoice confirmed', {
          invoice_id: invoice.invoice_id,
          tx_hash: decision.txHash,
          confirmations: decision.confirmations,
          paid_sats: paid.toString(),
          overpaid_sats: paid > amountSats ? (paid - amountSats).toString() : '0',
        });
        continue;
      }
      if (decision.status !== invoice.status) {
        await db
          .updateTable('invoices')
          .set({ status: decision.status, updated_at: now })
          .where('merchant_id', '=', merchantId)
          .where('invoice_id', '=', invoice.invoice_id)
          .where('status', '=', invoice.status)
          .execute();
        logger.info('btc invoice status changed', { invoice_id: invoice.invoice_id, from: invoice.status, to: decision.status });
      }
      continue;
    }
    // Expired or already confirmed: anything further that reaches its confirmations is an orphan.
    for (const payment of orphansToReport(rows, tipHeight)) {
      await db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('btc_payments')
          .set({ reported: 1 })
          .where('merchant_id', '=', merchantId)
          .where('txid', '=', payment.txid)
          .where('vout', '=', payment.vout)
          .where('reported', '=', 0)
          .executeTakeFirst();
        if (updated.numUpdatedRows !== 1n) return;
        await enqueueEvent(trx, {
          merchantId,
          createdAt: now,
          payload: {
            event: 'payment.orphan',
            chain: 'btc',
            asset: 'BTC',
            token_address: null,
            address: invoice.receive_address,
            tx_hash: payment.txid,
            value: satsToBtc(payment.valueSats),
            detected_at: iso(payment.firstSeenAt),
          },
        });
      });
      logger.warn('btc payment to a settled invoice reported as payment.orphan', {
        invoice_id: invoice.invoice_id,
        invoice_status: invoice.status,
        tx_hash: payment.txid,
        vout: payment.vout,
        value_sats: payment.valueSats.toString(),
        first_seen_at: iso(payment.firstSeenAt),
      });
    }
  }
}
