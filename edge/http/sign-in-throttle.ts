import type { RateLimitConfig } from '../settings.ts';
import type { RateLimiter } from './sliding-window.ts';

/** A limiter in the edition's window store (memory on the listener, the database on Cloud). */
export type MakeLimiter = (name: string, config: RateLimitConfig, spareNewClients: boolean) => RateLimiter;

/**
 * The throttle of a sign-in with a key (the dashboard's, the consent page's, the Connected apps
 * page's). Per address, every attempt counts, taken before the key is looked up, so parallel
 * guesses cannot all pass, and the answer is the same for a right and a wrong key. Overall, a
 * ceiling that never refuses an address's first attempt in its window: addresses filling it lock
 * out only themselves. Per account, the sign-ins a matched key makes (sessions and grants it
 * creates) are bounded too, wherever they come from.
 */
export interface SignInThrottle {
  /** Before the key is looked up: seconds this address must wait, or 0 (the attempt is counted). */
  attempt(address: string): Promise<number>;
  /** After the key matched: seconds this account must wait, or 0 (the sign-in is counted). */
  signedIn(account: string): Promise<number>;
}

export function signInThrottle(make: MakeLimiter, name: string, config: RateLimitConfig): SignInThrottle {
  const perAddress = make(name, config, true);
  const perAccount = make(`${name}-account`, { perClient: config.perClient, overall: Number.MAX_SAFE_INTEGER }, false);
  return {
    attempt: (address) => perAddress.take(address),
    signedIn: (account) => perAccount.take(account),
  };
}
