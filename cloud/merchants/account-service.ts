import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { ChainWithMerchants } from '../../core/merchant-chain.ts';
import type { WebhookTargetPolicy } from '../../core/net/webhook-target.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { usageMonth } from '../billing/plans.ts';
import { invoicesThisMonth } from '../billing/usage.ts';
import { accountView } from './account-view.ts';
import { findMerchant, listApiKeys, saveLightning, type MerchantRow } from './merchant.repository.ts';
import { checkedLightning, signup } from './signup.ts';
import { LightningSettingRequest } from '../../shared/index.ts';
import { ServiceError } from '../../core/errors.ts';
import type { LightningPlatform } from '../../core/merchant-chain.ts';
import type { createMerchantReceivers } from './merchant-context.ts';

export interface AccountServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  webhookPolicy: WebhookTargetPolicy;
  /** The chains Cloud serves, in the contract's order: each checks the receive methods registered on it. */
  chains: readonly ChainWithMerchants[];
  /** The merchant's receivers: the assets they enable are the ones invoice creation accepts. */
  receivers: ReturnType<typeof createMerchantReceivers>;
  /** Lightning through each merchant's own wallet; null where the platform's chains take none. */
  lightning: LightningPlatform | null;
}

/** Opening a merchant account, and the account as GET /me shows it. */
export function createAccountService(deps: AccountServiceDeps) {
  const { db, clock } = deps;
  return {
    signup: (body: unknown) => signup({ db, clock, webhookPolicy: deps.webhookPolicy, chains: deps.chains, lightning: deps.lightning }, body),

    /** Saves the merchant's Lightning connection once checked (receive-only, answering), or removes it (null). */
    async setLightning(merchant: MerchantRow, body: unknown) {
      const parsed = LightningSettingRequest.safeParse(body);
      if (!parsed.success) throw new ServiceError('bad_body', 'Send {"nwc_url": "nostr+walletconnect://…"} or {"nwc_url": null}; no other field.');
      if (parsed.data.nwc_url === null) {
        await saveLightning(db, merchant.merchant_id, null);
        return { lightning: null };
      }
      const checked = await checkedLightning(deps.lightning, parsed.data.nwc_url, 'nwc_url', deps.webhookPolicy);
      await saveLightning(db, merchant.merchant_id, { url: parsed.data.nwc_url.trim(), network: checked.network });
      return { lightning: { wallet: checked.wallet, relays: checked.relays, network: checked.network, problem: null } };
    },

    async me(merchant: MerchantRow) {
      const now = clock.now();
      const fresh = (await findMerchant(db, merchant.merchant_id)) ?? merchant;
      const [keys, used] = await Promise.all([listApiKeys(db, merchant.merchant_id), invoicesThisMonth(db, merchant.merchant_id, usageMonth(now))]);
      return accountView(fresh, keys, used, now, deps.receivers.receivers(fresh).assets, deps.lightning);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
