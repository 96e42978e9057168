import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool, Transaction } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoicesTable } from './invoice.tables.ts';

type Db = Kysely<CoreTables> | Transaction<CoreTables>;
/** The columns only a Lightning-capable Bitcoin invoice fills: a row built without them stores nulls. */
type LightningColumns = 'lightning_invoice' | 'payment_hash' | 'payment_method';
export type InvoiceRow = Omit<Selectable<InvoicesTable>, LightningColumns> & Partial<Pick<Selectable<InvoicesTable>, LightningColumns>>;
/** A chain's reason to keep an expired `invoices` row pending at `now`: true when it saw a payment in time (see ChainAdapter). */
export type ExpiryGuard = (invoice: ExpressionBuilder<CoreTables, 'invoices'>, now: number) => Expression<SqlBool>;

/**
 * Hands out the next child index of a wallet key. The sequence belongs to the key, not to a
 * merchant: every merchant that registered the same key (in any encoding) draws from it, so an
 * address is never handed out twice. The upsert is one statement, so two requests can never get
 * the same index; run it in the transaction that inserts the invoice, so a failed insert rolls the
 * counter back and no index is skipped.
 */
export async function allocateChildIndex(trx: Db, chain: string, keyId: string): Promise<number> {
  const row = await trx
    .insertInto('address_counters')
    .values({ chain, key_id: keyId, next_index: 1 })
    .onConflict((oc) => oc.columns(['chain', 'key_id']).doUpdateSet((eb) => ({ next_index: eb('address_counters.next_index', '+', 1) })))
    .returning('next_index')
    .executeTakeFirstOrThrow();
  return row.next_index - 1;
}

/** The index the next allocation will return, for pre-deriving addresses ahead of requests. */
export async function peekNextChildIndex(db: Db, chain: string, keyId: string): Promise<number> {
  const row = await db.selectFrom('address_counters').select('next_index').where('chain', '=', chain).where('key_id', '=', keyId).executeTakeFirst();
  return row?.next_index ?? 0;
}

/**
 * Moves invoices stored under a key's old id (one derived from its text, before migration 0009)
 * to the key's identity, and continues its sequence after both. Idempotent: a no-op once done.
 */
export async function adoptKeyIdentity(db: Kysely<CoreTables>, chain: string, legacyKeyId: string, keyId: string): Promise<void> {
  if (legacyKeyId === keyId) return;
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('invoices').set({ key_id: keyId }).where('chain', '=', chain).where('key_id', '=', legacyKeyId).execute();
    const legacy = await trx.deleteFrom('address_counters').where('chain', '=', chain).where('key_id', '=', legacyKeyId).returning('next_index').executeTakeFirst();
    if (!legacy) return;
    await trx
      .insertInto('address_counters')
      .values({ chain, key_id: keyId, next_index: legacy.next_index })
      .onConflict((oc) => oc.columns(['chain', 'key_id']).doUpdateSet({ next_index: legacy.next_index }).where('address_counters.next_index', '<', legacy.next_index))
      .execute();
  });
}

export async function insertInvoice(trx: Db, row: InvoiceRow): Promise<void> {
  await trx.insertInto('invoices').values(row).execute();
}

export async function findInvoice(db: Db, merchantId: string, invoiceId: string): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirst();
}

/**
 * Flips a pending invoice past its expiry; a no-op if anything else changed it first, or if a
 * chain's guard holds (a payment was seen before expiry: it may still confirm; the watchers decide).
 * The flipped invoice's chain and asset, or undefined when it did not flip.
 */
export async function expireIfPending(
  db: Db,
  guards: Iterable<ExpiryGuard>,
  merchantId: string,
  invoiceId: string,
  now: number,
): Promise<Pick<InvoiceRow, 'chain' | 'asset'> | undefined> {
  let query = db
    .updateTable('invoices')
    .set({ status: 'expired', updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now);
  for (const guard of guards) query = query.where((invoice) => invoice.not(guard(invoice, now)));
  return query.returning(['chain', 'asset']).executeTakeFirst();
}

/** Flips every lapsed pending invoice (of any merchant) as `expireIfPending` does one; returns those flipped. */
export async function expireLapsed(db: Db, guards: Iterable<ExpiryGuard>, now: number): Promise<Array<Pick<InvoiceRow, 'invoice_id' | 'merchant_id' | 'chain' | 'asset'>>> {
  let query = db
    .updateTable('invoices')
    .set({ status: 'expired', updated_at: now })
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now);
  for (const guard of guards) query = query.where((invoice) => invoice.not(guard(invoice, now)));
  return query.returning(['invoice_id', 'merchant_id', 'chain', 'asset']).execute();
}

/** The earliest expiry after `now` among pending invoices, or null when none is pending. */
export async function nextPendingExpiry(db: Db, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.min('expires_at').as('next'))
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.next == null ? null : Number(row.next);
}
