import type { Kysely } from 'kysely';
import type { CoreTables } from '../schema.ts';
import { headersAt } from './btc-headers.repository.ts';
import { parseHeader } from './header-chain.ts';
import { chunks } from '../db/chunks.ts';
import type { PaymentView } from './confirmation-rules.ts';

/**
 * When each payment's block was mined, for the expiry grace (confirmation-rules.ts): the time in
 * that block's header on the verified chain of the invoice's network, never a source's JSON. With
 * a trusted Bitcoin Core source no header chain is kept: then it is when this watcher processed the
 * block (our own clock, never earlier than the block). A block known by neither keeps
 * `blockTime: null` and is judged as a sighting: it counts only while the grace lasts.
 */
export async function withBlockTimes(db: Kysely<CoreTables>, network: string, scopeKey: string, payments: PaymentView[]): Promise<PaymentView[]> {
  const heights = [...new Set(payments.flatMap((p) => (p.status === 'block' && p.blockHeight !== null ? [p.blockHeight] : [])))];
  if (heights.length === 0) return payments;
  const times = new Map<number, number>();
  for (const [height, raw] of await headersAt(db, network, heights)) times.set(height, parseHeader(raw).time * 1000);
  const unknown = heights.filter((h) => !times.has(h));
  for (const chunk of chunks(unknown)) {
    const processed = await db.selectFrom('btc_blocks').select(['height', 'processed_at']).where('merchant_id', '=', scopeKey).where('height', 'in', chunk).execute();
    for (const row of processed) times.set(Number(row.height), Number(row.processed_at));
  }
  return payments.map((p) => (p.status === 'block' && p.blockHeight !== null && times.has(p.blockHeight) ? { ...p, blockTime: times.get(p.blockHeight)! } : p));
}

/**
 * `withBlockTimes` for the payment lists of many invoices of one network at once: one read of all
 * their heights (a block's payments share one), not one per invoice, whose round trips made a
 * block paying 1,000 invoices cost a second on Postgres.
 */
export async function withBlockTimesEach(db: Kysely<CoreTables>, network: string, scopeKey: string, lists: PaymentView[][]): Promise<PaymentView[][]> {
  const timed = await withBlockTimes(db, network, scopeKey, lists.flat());
  let start = 0;
  return lists.map((list) => timed.slice(start, (start += list.length)));
}
