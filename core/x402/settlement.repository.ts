import type { Kysely, Selectable } from 'kysely';
import type { X402SettlementsTable, X402Tables } from './x402.tables.ts';

export type X402SettlementRow = Selectable<X402SettlementsTable>;

export interface SettlementClaim {
  invoiceId: string;
  merchantId: string;
  payer: string;
  nonce: string;
  /** The authorization's `validBefore` (Unix seconds): the lock holds at least until then. */
  validBefore: number;
  network: string;
  now: number;
}

/**
 * Takes the invoice's lock for one authorization: a new row, or the row of an attempt that sent
 * nothing (`refused`) or whose authorization lapsed unmined (`lapsed`). A `settling` lock is never
 * taken over by age: only `releaseLapsed` ends it, once its authorization can no longer be mined.
 * Refused when it is taken; `current` then says by what (the same payload's earlier answer, or
 * another payer).
 */
export async function claimSettlement(db: Kysely<X402Tables>, claim: SettlementClaim): Promise<{ claimed: true } | { claimed: false; current: X402SettlementRow }> {
  const taken = { state: 'settling', payer: claim.payer, nonce: claim.nonce, valid_before: claim.validBefore, tx_hash: null, network: claim.network, updated_at: claim.now };
  const inserted = await db
    .insertInto('x402_settlements')
    .values({ invoice_id: claim.invoiceId, merchant_id: claim.merchantId, created_at: claim.now, ...taken })
    .onConflict((oc) => oc.column('invoice_id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { claimed: true };
  const retaken = await db.updateTable('x402_settlements').set(taken).where('invoice_id', '=', claim.invoiceId).where('state', 'in', ['refused', 'lapsed']).executeTakeFirst();
  if (Number(retaken.numUpdatedRows) === 1) return { claimed: true };
  const current = await db.selectFrom('x402_settlements').selectAll().where('invoice_id', '=', claim.invoiceId).executeTakeFirst();
  // Released between the two statements: the caller may simply try again.
  if (!current) return claimSettlement(db, claim);
  return { claimed: false, current };
}

/** The lock that holds the invoice now, if any: a settlement sent, unseen, or under way (see `releaseLapsed`). */
export function currentLock(db: Kysely<X402Tables>, invoiceId: string): Promise<X402SettlementRow | undefined> {
  return db.selectFrom('x402_settlements').selectAll().where('invoice_id', '=', invoiceId).where('state', 'in', ['sent', 'unseen', 'settling']).executeTakeFirst();
}

/**
 * Ends a `settling` lock whose settle never answered, once the caller has seen on the chain that
 * its authorization can no longer be mined. Only that very authorization's lock (its nonce): a
 * lock taken since is left alone. Whether it was released.
 */
export async function releaseLapsed(db: Kysely<X402Tables>, lock: Pick<X402SettlementRow, 'invoice_id' | 'nonce'>, now: number): Promise<boolean> {
  const released = await db
    .updateTable('x402_settlements')
    .set({ state: 'lapsed', updated_at: now })
    .where('invoice_id', '=', lock.invoice_id)
    .where('nonce', '=', lock.nonce)
    .where('state', '=', 'settling')
    .executeTakeFirst();
  return Number(released.numUpdatedRows) === 1;
}

/** Moves the claim of `nonce` on the invoice to its outcome. */
export async function settleClaim(db: Kysely<X402Tables>, invoiceId: string, nonce: string, outcome: { state: 'sent' | 'unseen' | 'refused'; txHash?: string | null; now: number }) {
  await db
    .updateTable('x402_settlements')
    .set({ state: outcome.state, tx_hash: outcome.txHash ?? null, updated_at: outcome.now })
    .where('invoice_id', '=', invoiceId)
    .where('nonce', '=', nonce)
    .execute();
}

/** Adds gas the built-in settler spent on the invoice (a transaction sent, mined or reverted). */
export async function addSettlerGas(db: Kysely<X402Tables>, invoiceId: string, gas: number, now: number) {
  await db
    .updateTable('x402_settlements')
    .set((eb) => ({ gas_used: eb('gas_used', '+', gas), updated_at: now }))
    .where('invoice_id', '=', invoiceId)
    .execute();
}

/** The built-in settler's gas spent on this invoice so far. */
export async function settlerGasOnInvoice(db: Kysely<X402Tables>, invoiceId: string): Promise<bigint> {
  const row = await db.selectFrom('x402_settlements').select('gas_used').where('invoice_id', '=', invoiceId).executeTakeFirst();
  return BigInt(row?.gas_used ?? 0);
}

/**
 * The built-in settler's gas on `network` of every invoice whose settlement moved since `since`
 * (all of each such invoice's spend counts: an over-count, so the hourly bound errs on the side of
 * pausing).
 */
export async function settlerGasSince(db: Kysely<X402Tables>, network: string, since: number): Promise<bigint> {
  const { gas } = await db
    .selectFrom('x402_settlements')
    .select((eb) => eb.fn.sum<string | number | null>('gas_used').as('gas'))
    .where('network', '=', network)
    .where('updated_at', '>=', since)
    .executeTakeFirstOrThrow();
  return BigInt(gas ?? 0);
}

/** Settlements a settler reported that the chain never showed: /health and /metrics tell them. */
export async function countUnseenSettlements(db: Kysely<X402Tables>, merchantId?: string): Promise<number> {
  let query = db.selectFrom('x402_settlements').select((eb) => eb.fn.countAll<string | number>().as('n')).where('state', '=', 'unseen');
  if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
  const { n } = await query.executeTakeFirstOrThrow();
  return Number(n);
}
