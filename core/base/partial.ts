import type { ExpressionBuilder, Kysely } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';

/**
 * What an unconfirmed xpub-mode invoice reads, by Bitcoin's rule: `partial` while the transfers
 * seen (any number of confirmations, mined no later than `expires_at`, of the invoice's token)
 * add up to less than the amount; `pending` once they cover it, until the confirmations come;
 * `expired` once a part-paid invoice is past its expiry. Recounted from the recorded transfers
 * on every pass, so a reorg that drops a part payment turns `partial` back to `pending`.
 * Fixed-address invoices never read `partial`: an inexact amount pays nothing.
 */
export async function refreshPartialStatus(db: Kysely<CoreTables>, feed: StatusFeed, merchantId: string, chain: string, now: number): Promise<void> {
  const rows = await db
    .selectFrom('invoices as i')
    .leftJoin('base_transfers as t', (join) =>
      join
        .onRef('t.merchant_id', '=', 'i.merchant_id')
        .onRef('t.chain', '=', 'i.chain')
        .onRef('t.to_address', '=', 'i.receive_address')
        .onRef('t.token_address', '=', 'i.token_address')
        .onRef('t.block_time', '<=', 'i.expires_at')
        .on('t.state', 'in', ['seen', 'applied']),
    )
    .select(['i.invoice_id', 'i.status', 'i.amount_units', 'i.expires_at', 't.value'])
    .where('i.merchant_id', '=', merchantId)
    .where('i.chain', '=', chain)
    .where('i.child_index', 'is not', null)
    .where('i.status', 'in', ['pending', 'partial'])
    .where((eb) => eb.or([eb('i.status', '=', 'partial'), eb('t.tx_hash', 'is not', null)]))
    .execute();

  const seen = new Map<string, { status: string; amount: bigint; expiresAt: number; sum: bigint }>();
  for (const row of rows) {
    const entry = seen.get(row.invoice_id) ?? { status: row.status, amount: BigInt(row.amount_units!), expiresAt: row.expires_at, sum: 0n };
    if (row.value !== null) entry.sum += BigInt(row.value);
    seen.set(row.invoice_id, entry);
  }
  for (const [invoiceId, entry] of seen) {
    let status: string;
    if (entry.sum >= entry.amount || entry.sum === 0n) status = 'pending';
    else status = now >= entry.expiresAt ? 'expired' : 'partial';
    if (status === entry.status) continue;
    await feed.transaction(db, async (trx, changed) => {
      const moved = await trx
        .updateTable('invoices')
        .set({ status, updated_at: now })
        .where('merchant_id', '=', merchantId)
        .where('invoice_id', '=', invoiceId)
        .where('status', '=', entry.status)
        .executeTakeFirst();
      if (moved.numUpdatedRows > 0n) changed({ invoice_id: invoiceId, merchant_id: merchantId, status, at: now });
    });
  }
}

/**
 * Token units seen toward one invoice by the same rule as `refreshPartialStatus`: transfers of its
 * token to its address, mined no later than `expires_at`, any confirmations. At a fixed address,
 * which other invoices share, only a transfer of the invoice's exact amount counts.
 */
export async function seenUnitsOf(
  db: Kysely<CoreTables>,
  invoice: Pick<InvoiceRow, 'merchant_id' | 'chain' | 'receive_address' | 'token_address' | 'expires_at' | 'child_index' | 'amount_units'>,
): Promise<bigint> {
  let query = db
    .selectFrom('base_transfers')
    .select('value')
    .where('merchant_id', '=', invoice.merchant_id)
    .where('chain', '=', invoice.chain)
    .where('to_address', '=', invoice.receive_address)
    .where('token_address', '=', invoice.token_address)
    .where('block_time', '<=', invoice.expires_at)
    .where('state', 'in', ['seen', 'applied']);
  if (invoice.child_index === null) query = query.where('value', '=', invoice.amount_units).limit(1);
  const rows = await query.execute();
  return rows.reduce((sum, row) => sum + BigInt(row.value), 0n);
}

/**
 * The expiry guard of one EVM chain's invoices: a transfer on that chain of the invoice's token to
 * its address mined by `expires_at`, of the exact amount when the address is the merchant's fixed
 * one (other invoices share it there).
 */
export const evmTransferSeenBeforeExpiry = (chain: string) => ({ exists, selectFrom }: ExpressionBuilder<CoreTables, 'invoices'>) =>
  exists(
    selectFrom('base_transfers')
      .select('base_transfers.tx_hash')
      .where('base_transfers.chain', '=', chain)
      .whereRef('base_transfers.chain', '=', 'invoices.chain')
      .whereRef('base_transfers.merchant_id', '=', 'invoices.merchant_id')
      .whereRef('base_transfers.to_address', '=', 'invoices.receive_address')
      .whereRef('base_transfers.token_address', '=', 'invoices.token_address')
      .whereRef('base_transfers.block_time', '<=', 'invoices.expires_at')
      .where('base_transfers.state', 'in', ['seen', 'applied'])
      .where((transfer) =>
        transfer.or([transfer('invoices.child_index', 'is not', null), transfer('base_transfers.value', '=', transfer.ref('invoices.amount_units'))]),
      ),
  );
