import type { Kysely, Transaction } from 'kysely';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import type { PlanName } from './plans.ts';

type Db = Kysely<CloudTables> | Transaction<CloudTables>;

/**
 * Counts one invoice against the month's cap, inside the invoice's own transaction. The upsert's
 * guarded update locks the merchant's counter row, so concurrent requests (on any instance) are
 * counted one after the other and the cap is never passed; a failed insert rolls the count back.
 */
export async function countInvoice(trx: Db, merchantId: string, month: string, plan: PlanName, limit: number): Promise<void> {
  const counted = await trx
    .insertInto('cloud_usage')
    .values({ merchant_id: merchantId, month, invoices: 1 })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'month'])
        .doUpdateSet((eb) => ({ invoices: eb('cloud_usage.invoices', '+', 1) }))
        .where('cloud_usage.invoices', '<', limit),
    )
    .returning('invoices')
    .executeTakeFirst();
  if (counted) return;
  const used = await invoicesThisMonth(trx, merchantId, month);
  throw new ServiceError('plan_limit_reached', `The ${plan} plan allows ${limit} invoices per month; upgrade with POST /api/v1/billing/checkout.`, {
    details: { plan, limit, used },
  });
}

export async function invoicesThisMonth(db: Db, merchantId: string, month: string): Promise<number> {
  const row = await db
    .selectFrom('cloud_usage')
    .select('invoices')
    .where('merchant_id', '=', merchantId)
    .where('month', '=', month)
    .executeTakeFirst();
  return Number(row?.invoices ?? 0);
}
