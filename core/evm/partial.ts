import type { ExpressionBuilder, Kysely } from 'kysely';
import type { CoreTables } from '../schema.ts';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { StatusFeed } from '../invoices/status-feed.ts';
import { methodOf } from '../invoices/payment-method.ts';
import { moveInvoiceStatus, partialCandidates, type EvmWatchScope } from './evm-transfer.repository.ts';
import { evmPaymentMethods } from './methods/evm-methods.ts';
import { CHAIN_CLOCK_SKEW_MS } from './nonce.ts';

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
 * Whether the recorded transfer counts toward the invoice beside it, by the rule every read
 * (checkout, x402, the invoice API, the expiry guard) shares with `refreshPartialStatus`: a
 * transfer of its token to its address, mined no later than `expires_at`, any confirmations, not
 * applied to another invoice. When its method takes exact amounts (a fixed address, which other
 * invoices share, and whose amounts come back after the quarantine), only a transfer of its
 * exact amount mined no earlier than its creation (less CHAIN_CLOCK_SKEW_MS): the transfer that
 * paid an earlier invoice of that amount never counts again.
 */
const countsToward = (eb: ExpressionBuilder<CoreTables, 'invoices' | 'base_transfers'>) =>
  eb.and([
    eb('base_transfers.chain', '=', eb.ref('invoices.chain')),
    eb('base_transfers.merchant_id', '=', eb.ref('invoices.merchant_id')),
    eb('base_transfers.to_address', '=', eb.ref('invoices.receive_address')),
    eb('base_transfers.token_address', '=', eb.ref('invoices.token_address')),
    eb('base_transfers.block_time', '<=', eb.ref('invoices.expires_at')),
    eb('base_transfers.state', 'in', ['seen', 'applied']),
    eb.or([eb('base_transfers.invoice_id', 'is', null), eb('base_transfers.invoice_id', '=', eb.ref('invoices.invoice_id'))]),
    eb.or(
      evmPaymentMethods.map((method) =>
        method.exactAmount
          ? eb.and([
              eb('base_transfers.value', '=', eb.ref('invoices.amount_units')),
              eb('base_transfers.block_time', '>=', eb(eb.ref('invoices.created_at'), '-', CHAIN_CLOCK_SKEW_MS)),
            ])
          : eb(`invoices.${method.ownedBy}`, 'is not', null),
      ),
    ),
  ]);

/** Token units seen toward one invoice (`countsToward`): one transfer at most when its method takes exact amounts. */
export async function seenUnitsOf(db: Kysely<CoreTables>, invoice: InvoiceRow): Promise<bigint> {
  let query = db
    .selectFrom(['invoices', 'base_transfers'])
    .select('base_transfers.value')
    .where('invoices.merchant_id', '=', invoice.merchant_id)
    .where('invoices.invoice_id', '=', invoice.invoice_id)
    .where('base_transfers.merchant_id', '=', invoice.merchant_id)
    .where('base_transfers.to_address', '=', invoice.receive_address)
    .where(countsToward);
  if (methodOf(evmPaymentMethods, invoice).exactAmount) query = query.limit(1);
  const rows = await query.execute();
  return rows.reduce((sum, row) => sum + BigInt(row.value), 0n);
}

/** The expiry guard of one EVM chain's invoices: a transfer on that chain that counts toward the invoice (`countsToward`). */
export const evmTransferSeenBeforeExpiry = (chain: string) => ({ exists, selectFrom }: ExpressionBuilder<CoreTables, 'invoices'>) =>
  exists(selectFrom('base_transfers').select('base_transfers.tx_hash').where('base_transfers.chain', '=', chain).where(countsToward));
