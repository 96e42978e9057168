import type { ExpressionBuilder, Kysely } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';
import { methodOf } from '../invoices/payment-method.ts';
import { moveInvoiceStatus, partialCandidates, type EvmWatchScope } from './evm-transfer.repository.ts';
import { evmPaymentMethods } from './methods/evm-methods.ts';

/**
 * What an unconfirmed invoice whose transfers add up (derived address) reads, by Bitcoin's rule:
 * `partial` while the transfers seen (any number of confirmations, mined no later than
 * `expires_at`, of the invoice's token) add up to less than the amount; `pending` once they cover
 * it, until the confirmations come; `expired` once a part-paid invoice is past its expiry.
 * Recounted from the recorded transfers on every pass, so a reorg that drops a part payment turns
 * `partial` back to `pending`. Invoices of a method taking exact amounts (fixed address) never read
 * `partial`: an inexact amount pays nothing. Every invoice of the scope (one merchant's, or every
 * merchant's) is planned from its own transfers, then the moves are written in one transaction,
 * each guarded by the status it was planned from.
 */
export async function refreshPartialStatus(db: Kysely<CoreTables>, feed: StatusFeed, scope: EvmWatchScope, now: number): Promise<void> {
  const addingUp = evmPaymentMethods.filter((method) => !method.exactAmount).map((method) => method.ownedBy);
  const moves = planPartialMoves(await partialCandidates(db, scope, addingUp), now);
  if (!moves.length) return;
  await feed.transaction(db, async (trx, changed) => {
    for (const move of moves) {
      if (await moveInvoiceStatus(trx, move, move.from, move.to, now)) changed({ invoice_id: move.invoice_id, merchant_id: move.merchant_id, status: move.to, at: now });
    }
  });
}

export interface PartialMove {
  merchant_id: string;
  invoice_id: string;
  from: string;
  to: string;
}

/** The status each invoice should read from the transfers seen toward it (one row per transfer, or one without). */
export function planPartialMoves(
  rows: ReadonlyArray<{ merchant_id: string; invoice_id: string; status: string; amount_units: string | null; expires_at: number; value: string | null }>,
  now: number,
): PartialMove[] {
  const seen = new Map<string, { merchant_id: string; invoice_id: string; status: string; amount: bigint; expiresAt: number; sum: bigint }>();
  for (const row of rows) {
    const key = `${row.merchant_id}\n${row.invoice_id}`;
    const entry = seen.get(key) ?? { merchant_id: row.merchant_id, invoice_id: row.invoice_id, status: row.status, amount: BigInt(row.amount_units!), expiresAt: Number(row.expires_at), sum: 0n };
    if (row.value !== null) entry.sum += BigInt(row.value);
    seen.set(key, entry);
  }
  const moves: PartialMove[] = [];
  for (const entry of seen.values()) {
    let status: string;
    if (entry.sum >= entry.amount || entry.sum === 0n) status = 'pending';
    else status = now >= entry.expiresAt ? 'expired' : 'partial';
    if (status !== entry.status) moves.push({ merchant_id: entry.merchant_id, invoice_id: entry.invoice_id, from: entry.status, to: status });
  }
  return moves;
}

/**
 * Token units seen toward one invoice by the same rule as `refreshPartialStatus`: transfers of its
 * token to its address, mined no later than `expires_at`, any confirmations. When its method takes
 * exact amounts (a fixed address, which other invoices share), only one transfer of its exact amount counts.
 */
export async function seenUnitsOf(db: Kysely<CoreTables>, invoice: InvoiceRow): Promise<bigint> {
  let query = db
    .selectFrom('base_transfers')
    .select('value')
    .where('merchant_id', '=', invoice.merchant_id)
    .where('chain', '=', invoice.chain)
    .where('to_address', '=', invoice.receive_address)
    .where('token_address', '=', invoice.token_address)
    .where('block_time', '<=', invoice.expires_at)
    .where('state', 'in', ['seen', 'applied']);
  if (methodOf(evmPaymentMethods, invoice).exactAmount) query = query.where('value', '=', invoice.amount_units).limit(1);
  const rows = await query.execute();
  return rows.reduce((sum, row) => sum + BigInt(row.value), 0n);
}

/**
 * The expiry guard of one EVM chain's invoices: a transfer on that chain of the invoice's token to
 * its address mined by `expires_at`: any, to a row of a method whose transfers add up; of the exact
 * amount otherwise (other invoices share a fixed address).
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
        transfer.or(
          evmPaymentMethods.map((method) =>
            method.exactAmount ? transfer('base_transfers.value', '=', transfer.ref('invoices.amount_units')) : transfer(`invoices.${method.ownedBy}`, 'is not', null),
          ),
        ),
      ),
  );
