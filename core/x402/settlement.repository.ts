import type { Kysely, Selectable } from 'kysely';
import type { X402SettlementsTable, X402Tables } from './x402.tables.ts';

export type X402SettlementRow = Selectable<X402SettlementsTable>;

/**
 * A `settling` lock this old is taken over: its settle never answered, and the authorization it
 * held (valid at most X402_MAX_TIMEOUT_S plus the clock skew) can no longer be executed. If it was
 * mined, the watcher has seen it and the invoice is no longer payable anyway.
 */
export const STALE_LOCK_MS = 10 * 60_000;

export interface SettlementClaim {
  invoiceId: string;
  merchantId: string;
  payer: string;
  nonce: string;
  network: string;
  now: number;
}

/**
 * Takes the invoice's lock for one authorization: a new row, or the row of an attempt that sent
 * nothing (`refused`), or a stale one. Refused when it is taken; `current` then says by what (the same payload's
 * earlier answer, or another payer).
 */
export async function claimSettlement(db: Kysely<X402Tables>, claim: SettlementClaim): Promise<{ claimed: true } | { claimed: false; current: X402SettlementRow }> {
  const row = { invoice_id: claim.invoiceId, merchant_id: claim.merchantId, state: 'settling', payer: claim.payer, nonce: claim.nonce, tx_hash: null, network: claim.network, created_at: claim.now, updated_at: claim.now };
  const inserted = await db.insertInto('x402_settlements').values(row).onConflict((oc) => oc.column('invoice_id').doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { claimed: true };
  const retaken = await db
    .updateTable('x402_settlements')
    .set({ state: 'settling', payer: claim.payer, nonce: claim.nonce, tx_hash: null, network: claim.network, updated_at: claim.now })
    .where('invoice_id', '=', claim.invoiceId)
    .where((eb) => eb.or([eb('state', '=', 'refused'), eb.and([eb('state', '=', 'settling'), eb('updated_at', '<', claim.now - STALE_LOCK_MS)])]))
    .executeTakeFirst();
  if (Number(retaken.numUpdatedRows) === 1) return { claimed: true };
  const current = await db.selectFrom('x402_settlements').selectAll().where('invoice_id', '=', claim.invoiceId).executeTakeFirst();
  // Released between the two statements: the caller may simply try again.
  if (!current) return claimSettlement(db, claim);
  return { claimed: false, current };
}

/** The lock that holds the invoice now: a settlement sent or unseen, or one under way (a stale one no longer holds it). */
export function currentLock(db: Kysely<X402Tables>, invoiceId: string, now: number): Promise<X402SettlementRow | undefined> {
  const staleBefore = now - STALE_LOCK_MS;
  return db
    .selectFrom('x402_settlements')
    .selectAll()
    .where('invoice_id', '=', invoiceId)
    .where((eb) => eb.or([eb('state', 'in', ['sent', 'unseen']), eb.and([eb('state', '=', 'settling'), eb('updated_at', '>=', staleBefore)])]))
    .executeTakeFirst();
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

/** Settlements a settler reported that the chain never showed: /health and /metrics tell them. */
export async function countUnseenSettlements(db: Kysely<X402Tables>, merchantId?: string): Promise<number> {
  let query = db.selectFrom('x402_settlements').select((eb) => eb.fn.countAll<string | number>().as('n')).where('state', '=', 'unseen');
  if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
  const { n } = await query.executeTakeFirstOrThrow();
  return Number(n);
}
