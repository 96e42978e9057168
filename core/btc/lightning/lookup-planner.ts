import type { Kysely } from 'kysely';
import type { CoreTables } from '../../schema.ts';

/** One open Lightning invoice a pass asks its merchant's wallet about. */
export interface PlannedLookup {
  merchantId: string;
  paymentHash: string;
}

interface Position {
  createdAt: number;
  invoiceId: string;
}

const OPEN = ['pending', 'partial'] as const;

/**
 * Which open Lightning invoices each pass looks up, within `budget` lookups a pass. Lookups are
 * the fallback for a missed notification, so every open invoice must come up in turn, whoever else
 * has open invoices: the merchants take turns (the pass after serves the merchants after the last
 * one served) and share the budget evenly, and each merchant's invoices are walked newest first,
 * a pass continuing where its last one stopped and starting again from the newest at the end. A
 * merchant with thousands of open invoices therefore delays no other merchant's lookups.
 */
export function createLookupPlanner(db: Kysely<CoreTables>, budget: number) {
  const walked = new Map<string, Position>();
  let lastServed = '';

  /** This pass's lookups, one list per merchant (a merchant's list runs in order, the lists side by side). */
  return async function plan(hasWallet: (merchantId: string) => boolean): Promise<PlannedLookup[][]> {
    const merchants = (await merchantsWithOpenLightning(db)).filter(hasWallet);
    const present = new Set(merchants);
    for (const merchantId of walked.keys()) if (!present.has(merchantId)) walked.delete(merchantId);
    const next = merchants.findIndex((merchantId) => merchantId > lastServed);
    const turn = next <= 0 ? merchants : [...merchants.slice(next), ...merchants.slice(0, next)];
    const served = turn.slice(0, budget);
    if (served.length === 0) return [];
    const share = Math.max(1, Math.floor(budget / served.length));
    const plans: PlannedLookup[][] = [];
    for (const merchantId of served) plans.push(await nextOfMerchant(merchantId, share));
    lastServed = served[served.length - 1];
    return plans;
  };

  async function nextOfMerchant(merchantId: string, share: number): Promise<PlannedLookup[]> {
    let rows = await openInvoicesOf(db, merchantId, walked.get(merchantId) ?? null, share);
    if (rows.length < share && walked.has(merchantId)) {
      // The walk reached the oldest: start again from the newest, without taking one twice in a pass.
      const taken = new Set(rows.map((row) => row.invoice_id));
      rows = [...rows, ...(await openInvoicesOf(db, merchantId, null, share - rows.length)).filter((row) => !taken.has(row.invoice_id))];
    }
    const last = rows[rows.length - 1];
    if (last) walked.set(merchantId, { createdAt: last.created_at, invoiceId: last.invoice_id });
    return rows.map((row) => ({ merchantId, paymentHash: row.payment_hash! }));
  }
}

/** Merchants with an open invoice payable over Lightning, in a stable order. */
async function merchantsWithOpenLightning(db: Kysely<CoreTables>): Promise<string[]> {
  const rows = await db.selectFrom('invoices').select('merchant_id').distinct().where('status', 'in', OPEN).where('payment_hash', 'is not', null).orderBy('merchant_id').execute();
  return rows.map((row) => row.merchant_id);
}

/** A merchant's open Lightning invoices, newest first, older than `after` when given. */
function openInvoicesOf(db: Kysely<CoreTables>, merchantId: string, after: Position | null, limit: number) {
  let query = db
    .selectFrom('invoices')
    .select(['invoice_id', 'payment_hash', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('status', 'in', OPEN)
    .where('payment_hash', 'is not', null);
  if (after) {
    query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('invoice_id', '<', after.invoiceId)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('invoice_id', 'desc').limit(limit).execute();
}
