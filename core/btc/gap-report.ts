import { sql, type Kysely } from 'kysely';
import { DEFAULT_WALLET_GAP_LIMIT, type BtcGapReport } from '../../shared/index.ts';
import type { CoreTables } from '../schema.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';

/**
 * The address gap of one wallet key. An index is used when a payment to its address is in the
 * mempool or a block (what the wallet itself sees); one that vanished leaves it unused. Every
 * allocated index may still be paid (late payments to expired invoices included), so the runs that
 * matter are those below the highest allocated index: a wallet scanning from 0 with gap limit G
 * reaches index i only if fewer than G unused indexes precede it in a row.
 *
 * The report is about the key, as the wallet sees it: merchants who registered the same key share
 * one index sequence (docs/security.md, "Invariants"), so a merchant's own indexes need not be contiguous, and
 * the indexes and payments of every merchant holding the key count. Anyone holding the key sees
 * those payments on chain anyway.
 *
 * Two small queries, each a few steps down one index: the merchants holding the key are found by
 * skipping through it (one step per merchant) with each one's highest index; then the longest run
 * between used indexes is one window pass over those merchants' payments only (one per paid
 * invoice), never over every invoice.
 */
export async function computeGapReport(db: Kysely<CoreTables>, keyId: string): Promise<BtcGapReport> {
  const { rows: holders } = await sql<{ merchant_id: string; highest: number | null }>`
    with recursive holders(merchant_id) as (
      select min(merchant_id) from invoices where chain = 'btc' and key_id = ${keyId}
      union all
      select (select min(merchant_id) from invoices where chain = 'btc' and key_id = ${keyId} and merchant_id > h.merchant_id)
      from holders h where h.merchant_id is not null
    )
    select h.merchant_id,
      (select max(child_index) from invoices where chain = 'btc' and key_id = ${keyId} and merchant_id = h.merchant_id) as highest
    from holders h where h.merchant_id is not null
  `.execute(db);
  const allocated = holders.filter((holder) => holder.highest !== null).map((holder) => Number(holder.highest));
  if (allocated.length === 0) return { highest_child_index: null, highest_paid_child_index: null, longest_unused_run: 0, wallet_gap_limit: 1 };
  const highest = Math.max(...allocated);

  const { rows } = await sql<{ highest_paid: number | null; longest_between: number | null }>`
    with used as (
      select distinct i.child_index as idx
      from btc_payments p
      join invoices i on i.invoice_id = p.invoice_id and i.merchant_id = p.merchant_id
      where p.merchant_id in (${sql.join(holders.map((holder) => holder.merchant_id))}) and p.status <> 'gone'
        and i.chain = 'btc' and i.key_id = ${keyId} and i.child_index is not null
    )
    select max(idx) as highest_paid, max(idx - prev - 1) as longest_between
    from (select idx, coalesce(lag(idx) over (order by idx), -1) as prev from used) runs
  `.execute(db);
  const highestPaid = rows[0]?.highest_paid === null || rows[0]?.highest_paid === undefined ? null : Number(rows[0].highest_paid);
  const longestBetween = Number(rows[0]?.longest_between ?? 0);
  // Unused indexes after the last paid one, below the highest allocated (which may itself be paid later).
  const trailing = highest - (highestPaid ?? -1) - 1;
  const longest = Math.max(longestBetween, trailing, 0);
  return { highest_child_index: highest, highest_paid_child_index: highestPaid, longest_unused_run: longest, wallet_gap_limit: longest + 1 };
}

const REPEAT_WARNING_MS = 3_600_000;

/**
 * Keeps the last gap report of every wallet key the watcher has invoices of (for /health) and warns
 * when a wallet needs more than the usual gap limit: when it first passes 20 (or at start), then
 * again at most hourly while it keeps changing, so a merchant creating many unpaid invoices is told
 * without a warning on every pass. Keys are data here, not watchers: only the keys marked stale
 * (new invoices, payments appearing or vanishing) are recomputed, and one key's failure leaves
 * the others' reports current.
 */
export function createGapMonitors(deps: { db: Kysely<CoreTables>; clock: Clock; logger: Logger }) {
  const { db, clock, logger } = deps;
  const reports = new Map<string, BtcGapReport>();
  const warnings = new Map<string, { at: number; limit: number }>();
  const stale = new Set<string>();

  async function refreshKey(keyId: string): Promise<void> {
    const report = await computeGapReport(db, keyId);
    reports.set(keyId, report);
    const limit = report.wallet_gap_limit;
    const lastWarning = warnings.get(keyId);
    if (limit <= DEFAULT_WALLET_GAP_LIMIT) {
      warnings.delete(keyId);
    } else if (!lastWarning || (limit !== lastWarning.limit && clock.now() - lastWarning.at >= REPEAT_WARNING_MS)) {
      warnings.set(keyId, { at: clock.now(), limit });
      logger.warn('btc address gap exceeds the usual wallet gap limit of 20: the merchant wallet may not show every payment', {
        key_id: keyId,
        ...report,
        advice: `set the wallet gap limit to at least ${limit} (docs/chains.md, "Gap limit"; service gap)`,
      });
    }
  }

  return {
    current: (keyId: string) => reports.get(keyId) ?? null,
    markStale(keyId: string | null) {
      if (keyId !== null) stale.add(keyId);
    },
    /** Recomputes the stale keys; a key that fails stays stale for the next call. */
    async refresh(): Promise<void> {
      for (const keyId of [...stale]) {
        try {
          await refreshKey(keyId);
          stale.delete(keyId);
        } catch (error) {
          logger.warn('btc gap report of a wallet key could not be computed; the other keys go on', { key_id: keyId, error: String(error) });
        }
      }
    },
  };
}
