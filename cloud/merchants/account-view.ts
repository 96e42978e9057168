import type * as z from 'zod';
import type { Account, AssetId } from '../../shared/index.ts';
import { maskExtendedKeys } from '../../core/log.ts';
import type { ApiKeyRow, MerchantRow } from './merchant.repository.ts';
import type { LightningPlatform } from '../../core/merchant-chain.ts';
import { effectivePlan, planOf } from '../billing/plans.ts';
import { receiveMethodsOf } from './receive-methods.ts';
import { webhookEventsOf } from '../invoices/webhook-delivery.ts';

const iso = (ms: number) => new Date(ms).toISOString();

const lightningProblemOf = (row: MerchantRow) => (row.lightning_problem ? { reason: row.lightning_problem, since: iso(Number(row.lightning_problem_since ?? row.created_at)) } : null);

/** GET /api/v1/me: the account without any secret; xpubs shortened as in the logs. `enabledAssets`: what the receive methods enable, as invoice creation judges it. */
export function accountView(row: MerchantRow, keys: ApiKeyRow[], invoicesThisMonth: number, now: number, enabledAssets: AssetId[], lightning: Pick<LightningPlatform, 'describe'> | null): z.infer<typeof Account> {
  const connection = row.lightning_nwc_url && lightning ? lightning.describe(row.lightning_nwc_url) : null;
  const plan = effectivePlan({ plan: row.plan as 'free', expiresAt: row.plan_expires_at === null ? null : Number(row.plan_expires_at) }, now);
  // One entry per chain and mode: an EVM chain with an xpub and a fixed address has two.
  const chains: z.infer<typeof Account>['chains'] = receiveMethodsOf(row).flatMap((method) => [
    ...(method.xpub ? [{ chain: method.chain, mode: 'xpub' as const, xpub: maskExtendedKeys(method.xpub), fixed_address: null }] : []),
    ...(method.address ? [{ chain: method.chain, mode: 'fixed-address' as const, xpub: null, fixed_address: method.address }] : []),
  ]);
  return {
    merchant_id: row.merchant_id,
    shop_name: row.shop_name,
    email: row.email,
    plan: plan.plan,
    plan_expires_at: plan.expiresAt === null ? null : iso(plan.expiresAt),
    usage: { invoices_this_month: invoicesThisMonth, monthly_limit: planOf(plan.plan).invoices_per_month },
    chains,
    enabled_assets: enabledAssets,
    webhook_url: row.webhook_url,
    webhook_events: webhookEventsOf(row),
    lightning: connection ? { ...connection, network: row.lightning_network ?? 'mainnet', problem: lightningProblemOf(row) } : null,
    api_keys: keys.map((key) => ({ prefix: key.prefix, label: key.label, created_at: iso(Number(key.created_at)), revoked: Number(key.revoked) === 1, scopes: key.scopes === null ? null : (key.scopes.split(' ') as ('invoices:read' | 'invoices:write')[]) })),
    created_at: iso(Number(row.created_at)),
  };
}
