import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { isServiceFailure, ServiceError } from '../../core/errors.ts';
import { unpaidShare } from '../../core/fair-shares.ts';
import type { CallLimit } from '../../edge/http/rate-limit.ts';
import type { RateLimiter } from '../../edge/http/sliding-window.ts';
import { invoiceTenant, type FairShareSettings } from '../billing/plan-shares.ts';
import { planNames, type PlanName } from '../billing/plans.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { createSharedRateLimiter } from './shared-rate-limiter.ts';

const UNLIMITED = Number.MAX_SAFE_INTEGER;
/** The one client of a window that counts everyone's requests. */
const EVERYONE = 'all';

/** One sliding window a request must fit in, and what a refusal by it says. */
interface Window {
  limiter: RateLimiter;
  client: string;
  refusal: (retryAfterS: number) => string;
}

/**
 * The x402 budget shared between merchants (the minute's windows in the database every instance
 * shares): each invoice's merchant has its plan's requests a minute (CLOUD_X402_RATE_PER_PLAN), Free
 * merchants together the overall budget less the reserve (CLOUD_FAIR_SHARE_RESERVE), and everyone
 * the overall budget (X402_RATE_LIMIT's second figure). So one merchant's flood, or many Free
 * accounts', cannot spend the answers another merchant's payers need. A call limit keyed by the
 * invoice id; the client-address window is the route's other limit.
 */
export function x402ShareLimit(deps: { db: Kysely<CloudTables>; clock: Clock; settings: FairShareSettings; overall: number }): CallLimit {
  const shared = (name: string, perClient: number) => createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config: { perClient, overall: UNLIMITED } });
  // One window per merchant, whatever its plan; each plan's limiter counts it against that plan's figure.
  const perMerchant = Object.fromEntries(planNames.map((plan) => [plan, shared('x402-merchant', deps.settings.x402PerMinute[plan])])) as Record<PlanName, RateLimiter>;
  const freeShare = unpaidShare({ total: deps.overall, reservePercent: deps.settings.reservePercent }, false);
  const unpaid = shared('x402-unpaid', freeShare);
  const everyone = shared('x402-all', deps.overall);

  /** Takes a slot in each window in turn; a refusal gives back the slots already taken and says which window refused. */
  async function takeAll(windows: Window[]): Promise<() => Promise<void>> {
    const taken: Window[] = [];
    const releaseTaken = () => Promise.all(taken.map((window) => window.limiter.release(window.client))).then(() => undefined);
    for (const window of windows) {
      const retryAfterS = await window.limiter.take(window.client);
      if (retryAfterS > 0) {
        await releaseTaken();
        throw new ServiceError('rate_limited', window.refusal(retryAfterS), { retryAfterS });
      }
      taken.push(window);
    }
    return releaseTaken;
  }

  return async (invoiceId, run) => {
    const { id, tier } = await invoiceTenant(deps.db, deps.settings.x402PerMinute, invoiceId, deps.clock.now());
    const plan = tier.plan as PlanName;
    const windows: Window[] = [
      { limiter: perMerchant[plan], client: id, refusal: (s) => `This merchant's x402 URLs had the ${plan} plan's ${tier.cap} requests this minute (CLOUD_X402_RATE_PER_PLAN ${plan}=${tier.cap}); retry in ${s} s.` },
      ...(tier.paying ? [] : [{ limiter: unpaid, client: EVERYONE, refusal: (s: number) => `The free plans' share of this server's x402 requests (${freeShare} a minute: X402_RATE_LIMIT less CLOUD_FAIR_SHARE_RESERVE) is spent; retry in ${s} s.` }]),
      { limiter: everyone, client: EVERYONE, refusal: (s) => `This server's x402 requests this minute are spent (X402_RATE_LIMIT, ${deps.overall} a minute); retry in ${s} s.` },
    ];
    const release = await takeAll(windows);
    try {
      return await run();
    } catch (error) {
      // As callLimit: a request the service failed (5xx) gives its slots back.
      if (isServiceFailure(error)) await release().catch(() => undefined);
      throw error;
    }
  };
}
