import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../../edge/settings.ts';
import { callLimit, type CallLimit } from '../../edge/http/rate-limit.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { createSharedRateLimiter } from './shared-rate-limiter.ts';

type LimitDeps = { db: Kysely<CloudTables>; clock: Clock };

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** A sliding window shared by every instance; `what` names the limited calls in the refusal. */
function limited(deps: LimitDeps, name: string, config: RateLimitConfig | null, what: string, spareNewClients = false): CallLimit {
  return callLimit(config && createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config, spareNewClients }), what);
}

/**
 * Sign-ups per client IP and overall, in windows every instance shares: the API's and the
 * dashboard's count together. The overall window never refuses an address's first sign-up of the
 * minute, so addresses filling it cannot stop everyone else from signing up.
 */
export const signupLimit = (deps: LimitDeps & { signupRateLimit: RateLimitConfig }): CallLimit => limited(deps, 'signup', deps.signupRateLimit, 'signups', true);

/** Invoice creations per API key (HTTP and MCP count together); null: unlimited. */
export const invoiceLimit = (deps: LimitDeps & { invoiceRateLimit: number | null }): CallLimit =>
  limited(deps, 'invoice', deps.invoiceRateLimit === null ? null : { perClient: deps.invoiceRateLimit, overall: UNLIMITED }, 'invoice requests for this API key');
