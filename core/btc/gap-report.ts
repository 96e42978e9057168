import { sql, type Kysely } from 'kysely';
import { DEFAULT_WALLET_GAP_LIMIT, type BtcGapReport } from '../../shared/index.ts';
import type { CoreTables } from '../schema.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { chunks } from '../db/chunks.ts';

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
 * Two queries for any number of keys, each a few steps down one index per key: the merchants
 * holding each key are found by skipping through it (one step per merchant) with each one's
 * highest index; then the longest run between used indexes is counted over those merchants'
 * payments only (one per paid invoice), never over every invoice. Up to 500 keys share each
 * pair of queries, the second repeated per 500 holders (100,000 merchants may share one key); for
 * more than 2,000 keys (a Cloud restart marks every key stale) the two queries read every key's
 * index entries once instead, not two statements per key.
 */
export async function computeGapReport(db: Kysely<CoreTables>, keyId: string): Promise<BtcGapReport> {
  return (await computeGapReports(db, [keyId])).get(keyId)!;
}

/** Keys per pair of statements: a few thousand bound parameters at most. */
const KEYS_PER_STATEMENT = 500;
/**
 * Above this many keys, one read of every Bitcoin invoice's index entry (a few hundred milliseconds
 * at 200,000 invoices) costs less than seeking each key's (a Cloud restart marks every key stale).
 */
const WHOLE_INDEX_ABOVE = 2_000;

/** The gap reports of `keyIds`, every one of them in the answer. */
export async function computeGapReports(db: Kysely<CoreTables>, keyIds: readonly string[]): Promise<Map<string, BtcGapReport>> {
  const wanted = [...new Set(keyIds)];
  if (wanted.length > WHOLE_INDEX_ABOVE) {
    const every = await gapReportsOf(db, null);
    return new Map(wanted.map((keyId) => [keyId, every.get(keyId) ?? NO_INVOICE]));
  }
  const reports = new Map<string, BtcGapReport>();
  for (let i = 0; i < wanted.length; i += KEYS_PER_STATEMENT) {
    const batch = wanted.slice(i, i + KEYS_PER_STATEMENT);
    const found = await gapReportsOf(db, batch);
    for (const keyId of batch) reports.set(keyId, found.get(keyId) ?? NO_INVOICE);
  }
  return reports;
}

const NO_INVOICE: BtcGapReport = { highest_child_index: null, highest_paid_child_index: null, longest_unused_run: 0, wallet_gap_limit: 1 };

/** Each merchant holding one of `keyIds` (null: every key), with its highest index of that key. */
async function holdersOf(db: Kysely<CoreTables>, keyIds: string[] | null) {
  if (keyIds === null) {
    return sql<{ key_id: string; merchant_id: string; highest: number | null }>`
      select key_id, merchant_id, max(child_index) as highest from invoices where chain = 'btc' and key_id is not null group by key_id, merchant_id
    `.execute(db);
  }
  return sql<{ key_id: string; merchant_id: string; highest: number | null }>`
    with recursive keys(key_id) as (select column1 from (values ${sql.join(keyIds.map((keyId) => sql`(${keyId})`))}) as listed),
    holders(key_id, merchant_id) as (
      select k.key_id, (select min(merchant_id) from invoices where chain = 'btc' and key_id = k.key_id) from keys k
      union all
      select h.key_id, (select min(merchant_id) from invoices where chain = 'btc' and key_id = h.key_id and merchant_id > h.merchant_id)
      from holders h where h.merchant_id is not null
    )
    select h.key_id, h.merchant_id,
      (select max(child_index) from invoices where chain = 'btc' and key_id = h.key_id and merchant_id = h.merchant_id) as highest
    from holders h where h.merchant_id is not null
  `.execute(db);
}

/** The reports of the keys with invoices among `keyIds` (null: every key). */
async function gapReportsOf(db: Kysely<CoreTables>, keyIds: string[] | null): Promise<Map<string, BtcGapReport>> {
  const { rows: holders } = await holdersOf(db, keyIds);
  const highest = new Map<string, number>();
  for (const holder of holders) {
    if (holder.highest !== null) highest.set(holder.key_id, Math.max(highest.get(holder.key_id) ?? -1, Number(holder.highest)));
  }
  // The paid indexes of the holders' payments, read from the payments side (one per paid invoice,
  // never every invoice), and each key's runs between them counted here.
  const paidIndexes = new Map<string, number[]>();
  if (highest.size) {
    const merchants = [...new Set(holders.map((holder) => holder.merchant_id))];
    // Many merchants may share one key (100,000 Cloud merchants on one key are as many holders):
    // a bounded number of them per statement, never one bound parameter per holder.
    for (const batch of keyIds === null ? [null] : chunks(merchants)) {
      const { rows } = await sql<{ key_id: string; idx: number }>`
        select distinct i.key_id, i.child_index as idx
        from btc_payments p
        join invoices i on i.invoice_id = p.invoice_id and i.merchant_id = p.merchant_id
        where ${batch === null ? sql`1 = 1` : sql`p.merchant_id in (${sql.join(batch)})`} and p.status <> 'gone'
          and i.chain = 'btc' and i.child_index is not null and i.key_id is not null
      `.execute(db);
      for (const row of rows) {
        if (!highest.has(row.key_id)) continue; // another key of the same merchants
        const list = paidIndexes.get(row.key_id);
        if (list) list.push(Number(row.idx));
        else paidIndexes.set(row.key_id, [Number(row.idx)]);
      }
    }
  }
  const used = new Map<string, { highestPaid: number | null; longestBetween: number }>();
  for (const [keyId, indexes] of paidIndexes) {
    indexes.sort((a, b) => a - b);
    let longestBetween = 0;
    indexes.forEach((index, i) => (longestBetween = Math.max(longestBetween, index - (i === 0 ? -1 : indexes[i - 1]) - 1)));
    used.set(keyId, { highestPaid: indexes[indexes.length - 1], longestBetween });
  }
  const reports = new Map<string, BtcGapReport>();
  for (const [keyId, top] of highest) {
    const { highestPaid, longestBetween } = used.get(keyId) ?? { highestPaid: null, longestBetween: 0 };
    // Unused indexes after the last paid one, below the highest allocated (which may itself be paid later).
    const trailing = top - (highestPaid ?? -1) - 1;
    const longest = Math.max(longestBetween, trailing, 0);
    reports.set(keyId, { highest_child_index: top, highest_paid_child_index: highestPaid, longest_unused_run: longest, wallet_gap_limit: longest + 1 });
  }
  return reports;
}

const REPEAT_WARNING_MS = 3_600_000;

/**
 * Keeps the last gap report of every wallet key the watcher has invoices of (for /health) and warns
 * when a wallet needs more than the usual gap limit: when it first passes 20 (or at start), then
 * again at most hourly while it keeps changing, so a merchant creating many unpaid invoices is told
 * without a warning on every pass. Keys are data here, not watchers: only the keys marked stale
 * (new invoices, payments appearing or vanishing) are recomputed, many keys per statement; a failed
 * computation leaves the earlier reports in place and the keys stale.
 */
export function createGapMonitors(deps: { db: Kysely<CoreTables>; clock: Clock; logger: Logger }) {
  const { db, clock, logger } = deps;
  const reports = new Map<string, BtcGapReport>();
  const warnings = new Map<string, { at: number; limit: number }>();
  const stale = new Set<string>();

  function noteReport(keyId: string, report: BtcGapReport): void {
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
    /** Recomputes the stale keys (many in one go); on failure they stay stale for the next call. */
    async refresh(): Promise<void> {
      if (!stale.size) return;
      const keys = [...stale];
      try {
        for (const [keyId, report] of await computeGapReports(db, keys)) {
          noteReport(keyId, report);
          stale.delete(keyId);
        }
      } catch (error) {
        logger.warn('btc gap reports could not be computed; retried on the next pass', { keys: keys.length, error: String(error) });
      }
    },
  };
}
