import { ServiceError } from './errors.ts';

/**
 * Fair shares of one instance's slots (MCP sessions, listen streams, checkout streams) between
 * tenants, on Cloud where sign-up is free and instant: a tenant's cap comes from its plan, and a
 * reserve of every total is kept from the tenants on unpaid plans, so no number of free accounts
 * can take what a paying tenant needs. A tenant on an unpaid plan that holds nothing yet may reach
 * into half the reserve: a new account can start while the free share is full, but free accounts
 * together never take the whole reserve.
 */

/** What one tenant may hold, from its plan. */
export interface ShareTier {
  /** The plan's name, as the refusal names it (`free`, `pro`). */
  plan: string;
  /** Slots at most for one tenant of this plan. */
  cap: number;
  /** A paid plan: it may take the reserve. */
  paying: boolean;
}

/** A tenant asking for a slot: who (its slots counted together) and its plan's tier. */
export interface ShareTenant {
  id: string;
  tier: ShareTier;
}

export interface FairShareBounds {
  /** The instance's total of the resource (MCP_MAX_SESSIONS, …): the reserve is a part of it. */
  total: number;
  /** Percent of `total` kept from unpaid plans (CLOUD_FAIR_SHARE_RESERVE); 0: no reserve. */
  reservePercent: number;
}

/** What is held now: by the asking tenant, by every tenant on an unpaid plan. */
export interface ShareHoldings {
  mine: number;
  unpaid: number;
}

/** Why a slot is refused: the tenant's own plan cap, or the unpaid plans' share of the instance. */
export type ShareRefusal = 'plan_cap' | 'unpaid_share';

/**
 * Slots of `total` that unpaid plans may hold together: all but the reserve (half of it for a
 * tenant holding none). The reserve rounds down, so an instance of a few slots keeps none.
 */
export function unpaidShare(bounds: FairShareBounds, newcomer: boolean): number {
  const reserve = Math.floor((bounds.total * bounds.reservePercent) / 100);
  return bounds.total - (newcomer ? Math.ceil(reserve / 2) : reserve);
}

/**
 * Whether one more slot for a tenant of `tier` is refused, and why; null: within its shares. The
 * instance's own total is the caller's to enforce (as before: `capacity`).
 */
export function shareRefusal(bounds: FairShareBounds, tier: ShareTier, held: ShareHoldings): ShareRefusal | null {
  if (held.mine >= tier.cap) return 'plan_cap';
  if (!tier.paying && held.unpaid >= unpaidShare(bounds, held.mine === 0)) return 'unpaid_share';
  return null;
}

/** How a resource names itself and its settings in a refusal. */
export interface ShareNames {
  /** `open MCP sessions`, `open checkout streams`. */
  what: string;
  /** The per-plan setting (CLOUD_MCP_SESSIONS_PER_PLAN). */
  capSetting: string;
  code: 'too_many_sessions' | 'too_many_streams';
}

/** The 429 of a refusal, naming the cap that was hit and when to retry. */
function shareRefusalError(names: ShareNames, refusal: ShareRefusal, tier: ShareTier, retryAfterS: number): ServiceError {
  const message =
    refusal === 'plan_cap'
      ? `The ${tier.plan} plan holds at most ${tier.cap} ${names.what} per merchant on this instance (${names.capSetting} ${tier.plan}=${tier.cap}); close one, or retry in ${retryAfterS} s.`
      : `The free plans' share of this instance's ${names.what} is taken (the rest is kept for paid plans: CLOUD_FAIR_SHARE_RESERVE); retry in ${retryAfterS} s, or upgrade the plan.`;
  return new ServiceError(names.code, message, { retryAfterS });
}

/** Counts of slots held per tenant and by unpaid plans: each resource keeps one beside its own bookkeeping. */
export function shareLedger() {
  const byTenant = new Map<string, number>();
  let unpaid = 0;
  return {
    holdings: (tenant: ShareTenant): ShareHoldings => ({ mine: byTenant.get(tenant.id) ?? 0, unpaid }),
    /** Counts one slot of `tenant`; the call returned gives it back, once however often it is called. */
    add(tenant: ShareTenant): () => void {
      byTenant.set(tenant.id, (byTenant.get(tenant.id) ?? 0) + 1);
      if (!tenant.tier.paying) unpaid++;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const left = byTenant.get(tenant.id)! - 1;
        if (left > 0) byTenant.set(tenant.id, left);
        else byTenant.delete(tenant.id);
        if (!tenant.tier.paying) unpaid--;
      };
    },
  };
}

/**
 * A slot within `tenant`'s shares, counted in `ledger`, or the 429 naming the cap hit. `retryAfterS`
 * is asked only on a refusal.
 */
export function takeShare(ledger: ReturnType<typeof shareLedger>, bounds: FairShareBounds, names: ShareNames, tenant: ShareTenant, retryAfterS: (refusal: ShareRefusal) => number): () => void {
  const refusal = shareRefusal(bounds, tenant.tier, ledger.holdings(tenant));
  if (refusal) throw shareRefusalError(names, refusal, tenant.tier, retryAfterS(refusal));
  return ledger.add(tenant);
}
