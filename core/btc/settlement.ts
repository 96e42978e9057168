import { invoiceShopFields } from '../invoices/shop-fields.ts';
import { sql, type Kysely, type Transaction, type UpdateObject } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import { enqueueEvents, type NewEvent } from '../events/outbox.ts';
import type { Logger } from '../log.ts';
import type { WatchObserver } from '../watch-progress.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';
import { satsToBtc } from './amount.ts';
import {
  claimUnreported,
  invoicesOf,
  invoicesToSettle,
  isInvoiceIn,
  markReported,
  paymentKey,
  paymentsOf,
  toPaymentView,
  type BtcWatchScope,
} from './btc-payment.repository.ts';
import { withBlockTimesEach } from './block-times.ts';
import { chunks } from '../db/chunks.ts';
import { btcOrphanEvent } from './orphan-event.ts';
import { decideOpenInvoice, orphansToReport, paidInTime, type PaymentView } from './confirmation-rules.ts';

const OPEN = ['pending', 'partial'];
const iso = (ms: number) => new Date(ms).toISOString();

interface Confirmation {
  invoice: InvoiceRow;
  txHash: string;
  confirmations: number;
  /** The payments that made up the amount: marked reported with the confirmation. */
  counted: PaymentView[];
}

/** What one pass decided, before anything is written. */
interface Plan {
  confirmations: Confirmation[];
  /** Open invoices whose status changes otherwise (pending ↔ partial, → expired), by `from` status. */
  moves: Array<{ invoice: InvoiceRow; to: string }>;
  orphans: Array<{ invoice: InvoiceRow; payment: PaymentView }>;
}

/**
 * Applies the confirmation rules to every invoice of the scope (one merchant's, or every merchant's
 * of a network) that has payments its merchant was not told about. Everything a pass decides is written in one transaction: status moves, the invoice.confirmed
 * and payment.orphan events, and the reported marks. Each move is guarded by the status it was
 * decided from and only the rows that really moved get an event, so a concurrent change (or a
 * second pass, or a second listener on the same database) can never confirm or report twice.
 */
export async function settleInvoices(
  db: Kysely<CoreTables>,
  feed: StatusFeed,
  scope: BtcWatchScope,
  /** The last block processed, which confirmations are counted against, when the watcher stored it, and how its chain was verified. */
  tip: { height: number; storedAt: number; verification: string },
  now: number,
  logger: Logger,
  observer?: Pick<WatchObserver, 'transition' | 'settled' | 'confirmedAfterBlock'>,
): Promise<void> {
  const refs = await invoicesToSettle(db, scope);
  if (refs.length === 0) return;
  const invoices = await invoicesOf(db, refs);
  const payments = new Map<string, PaymentView[]>();
  for (const row of await paymentsOf(db, refs)) {
    const key = invoiceKey(row);
    const list = payments.get(key) ?? [];
    list.push(toPaymentView(row));
    payments.set(key, list);
  }
  const keysByNetwork = new Map<string, string[]>();
  for (const invoice of invoices) {
    if (!invoice.network || !payments.has(invoiceKey(invoice))) continue;
    const keys = keysByNetwork.get(invoice.network);
    if (keys) keys.push(invoiceKey(invoice));
    else keysByNetwork.set(invoice.network, [invoiceKey(invoice)]);
  }
  for (const [network, keys] of keysByNetwork) {
    const timed = await withBlockTimesEach(db, network, scope.key, keys.map((key) => payments.get(key)!));
    keys.forEach((key, i) => payments.set(key, timed[i]));
  }

  const plan = planSettlement(invoices, payments, tip.height, now);
  if (!plan.confirmations.length && !plan.moves.length && !plan.orphans.length) return;

  const done = await feed.transaction(db, async (trx, changed) => {
    const moved = await moveStatuses(trx, plan.moves, now);
    const confirmed = await confirmInvoices(trx, plan.confirmations, tip.verification, now);
    for (const { invoice, to } of moved) changed({ invoice_id: invoice.invoice_id, merchant_id: invoice.merchant_id, status: to, at: now });
    for (const { invoice } of confirmed) changed({ invoice_id: invoice.invoice_id, merchant_id: invoice.merchant_id, status: 'confirmed', at: now });
    await markReported(trx, confirmed.flatMap((c) => c.counted.map((p) => ({ merchantId: c.invoice.merchant_id, txid: p.txid, vout: p.vout }))));
    const orphanRef = (o: Plan['orphans'][number]) => ({ merchantId: o.invoice.merchant_id, txid: o.payment.txid, vout: o.payment.vout });
    const claimed = await claimUnreported(trx, plan.orphans.map(orphanRef));
    const orphans = plan.orphans.filter((o) => claimed.has(paymentKey(orphanRef(o))));
    await enqueueEvents(trx, [...confirmed.map((c) => confirmedEvent(c, tip.verification, now)), ...orphans.map((o) => orphanEvent(o.invoice, o.payment, now))]);
    return { moved, confirmed, orphans };
  });

  for (const { invoice, to } of done.moved) {
    logger.info('btc invoice status changed', { merchant_id: invoice.merchant_id, invoice_id: invoice.invoice_id, from: invoice.status, to });
    observer?.transition(invoice.asset, to);
  }
  for (const c of done.confirmed) {
    observer?.transition(c.invoice.asset, 'confirmed');
    if (c.counted.length) observer?.settled((now - Math.min(...c.counted.map((p) => p.firstSeenAt))) / 1000);
    observer?.confirmedAfterBlock((now - tip.storedAt) / 1000);
    const amountSats = BigInt(c.invoice.amount_sats ?? 0);
    const paid = c.counted.reduce((sum, p) => sum + p.valueSats, 0n);
    logger.info('btc invoice confirmed', {
      invoice_id: c.invoice.invoice_id,
      tx_hash: c.txHash,
      confirmations: c.confirmations,
      paid_sats: paid.toString(),
      overpaid_sats: paid > amountSats ? (paid - amountSats).toString() : '0',
    });
  }
  for (const { invoice, payment } of done.orphans) {
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

/** Invoice ids are the merchant's: the merchant is part of the key, so payments never meet another merchant's invoice. */
const invoiceKey = (row: { merchant_id: string; invoice_id: string }) => `${row.merchant_id}\n${row.invoice_id}`;

/** Decides every invoice's move from its own payments; pure, so a pass is planned before anything is written. */
export function planSettlement(invoices: InvoiceRow[], payments: Map<string, PaymentView[]>, tipHeight: number, now: number): Plan {
  const plan: Plan = { confirmations: [], moves: [], orphans: [] };
  for (const invoice of invoices) {
    const rows = payments.get(invoiceKey(invoice)) ?? [];
    const amountSats = BigInt(invoice.amount_sats ?? 0);
    const expiresAt = Number(invoice.expires_at);
    if (OPEN.includes(invoice.status)) {
      const decision = decideOpenInvoice({ amountSats, expiresAt, status: invoice.status }, rows, tipHeight, now);
      if (decision.status === 'confirmed') {
        const counted = rows.filter((p) => paidInTime(expiresAt, p, now));
        plan.confirmations.push({ invoice, txHash: decision.txHash, confirmations: decision.confirmations, counted });
      } else if (decision.status !== invoice.status) {
        plan.moves.push({ invoice, to: decision.status });
      }
      continue;
    }
    // Expired or already confirmed: anything further that reaches its confirmations is an orphan.
    for (const payment of orphansToReport(rows, tipHeight)) plan.orphans.push({ invoice, payment });
  }
  return plan;
}

/** Groups rows by a key, keeping their order. */
function groupBy<T>(items: T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

/**
 * Applies `changes` to the invoices of `items`, one update per group and chunk, each guarded by the
 * status the decision was made from; returns the items whose row really changed.
 */
async function updateGuarded<T extends { invoice: InvoiceRow }>(
  trx: Transaction<CoreTables>,
  items: T[],
  groupKey: (item: T) => string,
  changes: (chunk: T[]) => UpdateObject<CoreTables, 'invoices'>,
): Promise<T[]> {
  const happened: T[] = [];
  for (const group of groupBy(items, (item) => `${item.invoice.status}>${groupKey(item)}`)) {
    for (const chunk of chunks(group)) {
      const rows = await trx
        .updateTable('invoices')
        .set(changes(chunk))
        .where(isInvoiceIn(chunk.map((item) => ({ merchantId: item.invoice.merchant_id, invoiceId: item.invoice.invoice_id })), [chunk[0].invoice.status]))
        .returning(['merchant_id', 'invoice_id'])
        .execute();
      const ids = new Set(rows.map((r) => invoiceKey(r)));
      happened.push(...chunk.filter((item) => ids.has(invoiceKey(item.invoice))));
    }
  }
  return happened;
}

const moveStatuses = (trx: Transaction<CoreTables>, moves: Plan['moves'], now: number) =>
  updateGuarded(trx, moves, (m) => m.to, (chunk) => ({ status: chunk[0].to, updated_at: now }));

/** The completing transaction differs per invoice: one CASE sets each its own. */
const confirmInvoices = (trx: Transaction<CoreTables>, confirmations: Confirmation[], verification: string, now: number) =>
  updateGuarded(trx, confirmations, () => 'confirmed', (chunk) => ({
    status: 'confirmed',
    verification,
    payment_method: 'onchain',
    tx_hash: sql<string>`case ${sql.join(
      chunk.map((c) => sql`when merchant_id = ${c.invoice.merchant_id} and invoice_id = ${c.invoice.invoice_id} then ${c.txHash}`),
      sql` `,
    )} end`,
    paid_at: now,
    updated_at: now,
  }));

function confirmedEvent(c: Confirmation, verification: string, now: number): NewEvent {
  const merchantId = c.invoice.merchant_id;
  return {
    merchantId,
    createdAt: now,
    payload: {
      event: 'invoice.confirmed',
      invoice_id: c.invoice.invoice_id,
      merchant_id: merchantId,
      chain: 'btc',
      asset: 'BTC',
      amount: satsToBtc(BigInt(c.invoice.amount_sats ?? 0)),
      address: c.invoice.receive_address,
      tx_hash: c.txHash,
      confirmations: c.confirmations,
      confirmed_at: iso(now),
      verification,
      payment_method: 'onchain',
      ...invoiceShopFields(c.invoice),
    },
  };
}

const orphanEvent = (invoice: InvoiceRow, payment: PaymentView, now: number): NewEvent =>
  btcOrphanEvent(invoice, { address: invoice.receive_address, txHash: payment.txid, valueSats: payment.valueSats, detectedAt: payment.firstSeenAt }, now);
