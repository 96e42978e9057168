import type { Kysely, Selectable, Transaction } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoicesTable } from './invoice.tables.ts';

type Db = Kysely<CoreTables> | Transaction<CoreTables>;
export type InvoiceRow = Selectable<InvoicesTable>;

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
 * payment was seen before expiry (it may still confirm; the watchers decide). On Base that is a
 * transfer of the invoice's token to its address mined by `expires_at`, of the exact amount when
 * the address is the merchant's fixed one (other invoices share it there).
 */
export async function expireIfPending(db: Db, merchantId: string, invoiceId: string, now: number): Promise<void> {
  await db
    .updateTable('invoices')
    .set({ status: 'expired', updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('btc_payments')
            .select('btc_payments.txid')
            .whereRef('btc_payments.merchant_id', '=', 'invoices.merchant_id')
            .whereRef('btc_payments.invoice_id', '=', 'invoices.invoice_id')
            .whereRef('btc_payments.first_seen_at', '<', 'invoices.expires_at')
            .where('btc_payments.status', '!=', 'gone'),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('base_transfers')
            .select('base_transfers.tx_hash')
            .whereRef('base_transfers.merchant_id', '=', 'invoices.merchant_id')
            .whereRef('base_transfers.to_address', '=', 'invoices.receive_address')
            .whereRef('base_transfers.token_address', '=', 'invoices.token_address')
            .whereRef('base_transfers.block_time', '<=', 'invoices.expires_at')
            .where('base_transfers.state', 'in', ['seen', 'applied'])
            .where((transfer) =>
              transfer.or([transfer('invoices.child_index', 'is not', null), transfer('base_transfers.value', '=', transfer.ref('invoices.amount_units'))]),
            ),
        ),
      ),
    )
    .execute();
}
