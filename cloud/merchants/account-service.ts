import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { ChainWithMerchants } from '../../core/merchant-chain.ts';
import type { WebhookTargetPolicy } from '../../core/net/webhook-target.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { usageMonth } from '../billing/plans.ts';
import { invoicesThisMonth } from '../billing/usage.ts';
import { accountView } from './account-view.ts';
import { findMerchant, listApiKeys, type MerchantRow } from './merchant.repository.ts';
import { signup } from './signup.ts';
import type { createMerchantReceivers } from './merchant-context.ts';

export interface AccountServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  webhookPolicy: WebhookTargetPolicy;
  /** The chains Cloud serves, in the contract's order: each checks the receive methods registered on it. */
  chains: readonly ChainWithMerchants[];
  /** The merchant's receivers: the assets they enable are the ones invoice creation accepts. */
  receivers: ReturnType<typeof createMerchantReceivers>;
}

/** Opening a merchant account, and the account as GET /me shows it. */
export function createAccountService(deps: AccountServiceDeps) {
  const { db, clock } = deps;
  return {
    signup: (body: unknown) => signup({ db, clock, webhookPolicy: deps.webhookPolicy, chains: deps.chains }, body),

    async me(merchant: MerchantRow) {
      const now = clock.now();
      const fresh = (await findMerchant(db, merchant.merchant_id)) ?? merchant;
      const [keys, used] = await Promise.all([listApiKeys(db, merchant.merchant_id), invoicesThisMonth(db, merchant.merchant_id, usageMonth(now))]);
      return accountView(fresh, keys, used, now, deps.receivers.receivers(fresh).assets);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
