import { sql, type ExpressionBuilder, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { BtcPaymentsTable } from './btc.tables.ts';
import type { PaymentView } from './confirmation-rules.ts';

type Db = Kysely<CoreTables> | Transaction<CoreTables>;
export type BtcPaymentRow = Selectable<BtcPaymentsTable>;

/**
 * Rows per statement: a few thousand bound parameters at most, far below SQLite's (32,766) and
 * Postgres's (65,535) limits, so a catch-up over many payments never builds an oversized statement.
 */
const CHUNK = 500;

export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One output at most once per statement: Postgres refuses an upsert that touches a row twice. */
function distinctOutputs(outputs: SeenOutput[]): SeenOutput[] {
  const byKey = new Map(outputs.map((o) => [`${o.txid}:${o.vout}`, o]));
  return [...byKey.values()];
}

/** `(txid, vout) in (values …)`: row values against a VALUES list, which both SQLite and Postgres accept. */
function isOneOf(outputs: readonly { txid: string; vout: number }[]) {
  return sql<boolean>`(txid, vout) in (values ${sql.join(outputs.map((o) => sql`(${o.txid}, cast(${o.vout} as integer))`))})`;
}

export interface SeenOutput {
  invoiceId: string;
  txid: string;
  vout: number;
  valueSats: bigint;
}

/**
 * Records outputs seen in a block. An output already known keeps its invoice, first sighting and
 * reported flag (the primary key makes a second credit impossible); only its place in the chain moves.
 */
export async function recordInBlock(trx: Db, merchantId: string, outputs: SeenOutput[], block: { height: number; hash: string }, seenAt: number) {
  for (const chunk of chunks(distinctOutputs(outputs))) {
    await trx
      .insertInto('btc_payments')
      .values(chunk.map((output) => ({ ...newRow(merchantId, output, seenAt), status: 'block', block_height: block.height, block_hash: block.hash })))
      .onConflict((oc) =>
        oc.columns(['merchant_id', 'txid', 'vout']).doUpdateSet({ status: 'block', block_height: block.height, block_hash: block.hash }),
      )
      .execute();
  }
}

/** Records outputs seen in the mempool; one already in a block is left as it is. Returns the invoices of the outputs new (or back) in the mempool. */
export async function recordInMempool(trx: Db, merchantId: string, outputs: SeenOutput[], seenAt: number): Promise<string[]> {
  const recorded: string[] = [];
  for (const chunk of chunks(distinctOutputs(outputs))) {
    const rows = await trx
      .insertInto('btc_payments')
      .values(chunk.map((output) => ({ ...newRow(merchantId, output, seenAt), status: 'mempool' })))
      .onConflict((oc) =>
        oc
          .columns(['merchant_id', 'txid', 'vout'])
          .doUpdateSet({ status: 'mempool' })
          .where('btc_payments.status', '=', 'gone'),
      )
      .returning('invoice_id')
      .execute();
    recorded.push(...rows.map((row) => row.invoice_id));
  }
  return recorded;
}

function newRow(merchantId: string, output: SeenOutput, seenAt: number) {
  return {
    merchant_id: merchantId,
    invoice_id: output.invoiceId,
    txid: output.txid,
    vout: output.vout,
    value_sats: Number(output.valueSats),
    block_height: null,
    block_hash: null,
    first_seen_at: seenAt,
    reported: 0,
  };
}

/** A reorg disconnected every block above `forkHeight`: their payments are unconfirmed until seen again. */
export async function disconnectAbove(trx: Db, merchantId: string, forkHeight: number) {
  await trx
    .updateTable('btc_payments')
    .set({ status: 'gone', block_height: null, block_hash: null })
    .where('merchant_id', '=', merchantId)
    .where('block_height', '>', forkHeight)
    .execute();
  await trx.deleteFrom('btc_blocks').where('merchant_id', '=', merchantId).where('height', '>', forkHeight).execute();
}

/** Unconfirmed payments whose transaction is no longer in the mempool (replaced or evicted). */
export async function markLeftMempool(db: Db, merchantId: string, mempool: ReadonlySet<string>): Promise<number> {
  const rows = await db
    .selectFrom('btc_payments')
    .select(['txid'])
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'mempool')
    .execute();
  const left = [...new Set(rows.map((r) => r.txid).filter((txid) => !mempool.has(txid)))];
  if (left.length === 0) return 0;
  await db
    .updateTable('btc_payments')
    .set({ status: 'gone' })
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'mempool')
    .where('txid', 'in', left)
    .execute();
  return left.length;
}

/**
 * The only invoices a pass must look at: those with live payments the merchant has not been told
 * about, and partial ones (whose payment may have vanished).
 */
export async function invoicesToSettle(db: Db, merchantId: string): Promise<string[]> {
  const unreported = await db
    .selectFrom('btc_payments')
    .select('invoice_id')
    .distinct()
    .where('merchant_id', '=', merchantId)
    .where('reported', '=', 0)
    .where('status', '!=', 'gone')
    .execute();
  const partial = await db
    .selectFrom('invoices')
    .select('invoice_id')
    .where('merchant_id', '=', merchantId)
    .where('chain', '=', 'btc')
    .where('status', '=', 'partial')
    .execute();
  return [...new Set([...unreported, ...partial].map((r) => r.invoice_id))];
}

export async function paymentsOf(db: Db, merchantId: string, invoiceIds: string[]): Promise<BtcPaymentRow[]> {
  const rows: BtcPaymentRow[] = [];
  for (const chunk of chunks(invoiceIds)) {
    rows.push(...(await db.selectFrom('btc_payments').selectAll().where('merchant_id', '=', merchantId).where('invoice_id', 'in', chunk).execute()));
  }
  return rows;
}

/** The expiry guard of Bitcoin invoices: an output to the invoice first seen before its expiry and not gone since. */
export function btcPaymentSeenBeforeExpiry({ exists, selectFrom }: ExpressionBuilder<CoreTables, 'invoices'>) {
  return exists(
    selectFrom('btc_payments')
      .select('btc_payments.txid')
      .whereRef('btc_payments.merchant_id', '=', 'invoices.merchant_id')
      .whereRef('btc_payments.invoice_id', '=', 'invoices.invoice_id')
      .whereRef('btc_payments.first_seen_at', '<', 'invoices.expires_at')
      .where('btc_payments.status', '!=', 'gone'),
  );
}

/** Sats paid to an invoice by outputs still on the chain or in the mempool, confirmed or not. */
export async function seenSatsOf(db: Db, merchantId: string, invoiceId: string): Promise<number> {
  const row = await db
    .selectFrom('btc_payments')
    .select((eb) => eb.fn.sum<number | string | null>('value_sats').as('sats'))
    .where('merchant_id', '=', merchantId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '!=', 'gone')
    .executeTakeFirst();
  return Number(row?.sats ?? 0);
}

export async function markReported(trx: Db, merchantId: string, payments: { txid: string; vout: number }[]) {
  for (const chunk of chunks(payments)) {
    await trx.updateTable('btc_payments').set({ reported: 1 }).where('merchant_id', '=', merchantId).where(isOneOf(chunk)).execute();
  }
}

/**
 * Marks still-unreported payments reported and returns the ones this call flipped: only those may
 * be reported, so a second pass (or a second listener on the same database) never reports one twice.
 */
export async function claimUnreported(trx: Db, merchantId: string, payments: { txid: string; vout: number }[]): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (const chunk of chunks(payments)) {
    const rows = await trx
      .updateTable('btc_payments')
      .set({ reported: 1 })
      .where('merchant_id', '=', merchantId)
      .where('reported', '=', 0)
      .where(isOneOf(chunk))
      .returning(['txid', 'vout'])
      .execute();
    for (const row of rows) claimed.add(`${row.txid}:${row.vout}`);
  }
  return claimed;
}

export function toPaymentView(row: BtcPaymentRow): PaymentView {
  return {
    txid: row.txid,
    vout: row.vout,
    valueSats: BigInt(row.value_sats),
    status: row.status as PaymentView['status'],
    blockHeight: row.block_height,
    firstSeenAt: Number(row.first_seen_at),
    reported: row.reported === 1,
  };
}

export async function lastProcessedBlock(db: Db, merchantId: string) {
  return db
    .selectFrom('btc_blocks')
    .select(['height', 'hash', 'processed_at'])
    .where('merchant_id', '=', merchantId)
    .orderBy('height', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function processedBlockAt(db: Db, merchantId: string, height: number) {
  return db
    .selectFrom('btc_blocks')
    .select(['height', 'hash'])
    .where('merchant_id', '=', merchantId)
    .where('height', '=', height)
    .executeTakeFirst();
}

/** Stores a processed block and forgets ones deeper than any reorg we would follow. */
export async function recordProcessedBlock(trx: Db, merchantId: string, block: { height: number; hash: string }, now: number, keep: number) {
  await trx
    .insertInto('btc_blocks')
    .values({ merchant_id: merchantId, height: block.height, hash: block.hash, processed_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'height']).doUpdateSet({ hash: block.hash, processed_at: now }))
    .execute();
  await trx.deleteFrom('btc_blocks').where('merchant_id', '=', merchantId).where('height', '<=', block.height - keep).execute();
}

/** Unconfirmed payments of these transactions that the source says left the mempool; returns how many transactions. */
export async function markGone(db: Db, merchantId: string, txids: readonly string[]): Promise<number> {
  let count = 0;
  for (const chunk of chunks([...new Set(txids)])) {
    const rows = await db
      .updateTable('btc_payments')
      .set({ status: 'gone' })
      .where('merchant_id', '=', merchantId)
      .where('status', '=', 'mempool')
      .where('txid', 'in', chunk)
      .returning('txid')
      .execute();
    count += new Set(rows.map((r) => r.txid)).size;
  }
  return count;
}

export interface OpenAddress {
  invoiceId: string;
  address: string;
  createdAt: number;
}

/**
 * Bitcoin invoices that can still be paid in time (pending or partial, not past expiry), newest
 * first: the addresses address-scoped watching follows live. Bounded by `limit`.
 */
export async function openInvoiceAddresses(db: Db, merchantId: string, now: number, limit: number): Promise<OpenAddress[]> {
  const rows = await db
    .selectFrom('invoices')
    .select(['invoice_id', 'receive_address', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('chain', '=', 'btc')
    .where('status', 'in', ['pending', 'partial'])
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('invoice_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ invoiceId: r.invoice_id, address: r.receive_address, createdAt: Number(r.created_at) }));
}

/**
 * Invoices a payment during downtime could still settle: open ones, and expired ones whose expiry
 * came after `since` (a payment first seen before expiry confirms late). Confirmed invoices and
 * ones expired before the gap are left to the blocks read whole.
 */
export async function invoicesPayableSince(db: Db, merchantId: string, since: number): Promise<OpenAddress[]> {
  const rows = await db
    .selectFrom('invoices')
    .select(['invoice_id', 'receive_address', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('chain', '=', 'btc')
    .where((eb) => eb.or([eb('status', 'in', ['pending', 'partial']), eb.and([eb('status', '=', 'expired'), eb('expires_at', '>', since)])]))
    .execute();
  return rows.map((r) => ({ invoiceId: r.invoice_id, address: r.receive_address, createdAt: Number(r.created_at) }));
}

/** Transactions of unconfirmed payments, by invoice. */
export async function mempoolPaymentsByInvoice(db: Db, merchantId: string): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('btc_payments')
    .select(['invoice_id', 'txid'])
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'mempool')
    .execute();
  const byInvoice = new Map<string, string[]>();
  for (const row of rows) byInvoice.set(row.invoice_id, [...(byInvoice.get(row.invoice_id) ?? []), row.txid]);
  return byInvoice;
}
