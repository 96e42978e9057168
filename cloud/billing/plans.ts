import { ServiceError } from '../../core/errors.ts';

export const planNames = ['free', 'starter', 'pro'] as const;
export type PlanName = (typeof planNames)[number];
export type PaidPlan = Exclude<PlanName, 'free'>;

export interface Plan {
  plan: PlanName;
  invoices_per_month: number;
  price_usd_per_month: number;
}

/** SPEC "Plan catalogue values". Prices are whole dollars, so the billing invoice amount is exact. */
export const planCatalogue: readonly Plan[] = [
  { plan: 'free', invoices_per_month: 50, price_usd_per_month: 0 },
  { plan: 'starter', invoices_per_month: 500, price_usd_per_month: 19 },
  { plan: 'pro', invoices_per_month: 5000, price_usd_per_month: 49 },
];

export const PAID_PERIOD_MS = 30 * 24 * 60 * 60 * 1000;

export function planOf(name: PlanName): Plan {
  return planCatalogue.find((p) => p.plan === name)!;
}

export function paidPlan(name: unknown): PaidPlan {
  if (name === 'starter' || name === 'pro') return name;
  throw new ServiceError('unknown_plan', 'plan must be "starter" or "pro".');
}

export interface PlanState {
  plan: PlanName;
  /** Epoch ms; null on Free. */
  expiresAt: number | null;
}

/** The plan in force at `now`: a paid plan whose period ended reads as Free. */
export function effectivePlan(state: PlanState, now: number): PlanState {
  if (state.plan === 'free' || state.expiresAt === null || state.expiresAt <= now) return { plan: 'free', expiresAt: null };
  return state;
}

/**
 * The plan after a crypto payment confirmed at `paidAt`: 30 days from then, or, when the same
 * plan is still running, 30 days added to its remaining time. Buying a different plan starts it
 * now (the rest of the old plan's period is not carried over).
 */
export function applyPaidPeriod(current: PlanState, bought: PaidPlan, paidAt: number): PlanState {
  const running = effectivePlan(current, paidAt);
  const from = running.plan === bought && running.expiresAt !== null ? running.expiresAt : paidAt;
  return { plan: bought, expiresAt: from + PAID_PERIOD_MS };
}

/**
 * Stripe bills calendar months and charges about an hour after a period turns, retrying a declined
 * card for days; a card plan therefore runs this long past the period it paid for.
 */
export const CARD_GRACE_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * The plan after a card payment that covers up to `paidUntil`: it runs to `paidUntil` plus the
 * grace. Never shortens the same plan, so a payment reported twice or late changes nothing.
 */
export function applyCardPeriod(current: PlanState, bought: PaidPlan, paidUntil: number, paidAt: number): PlanState {
  const running = effectivePlan(current, paidAt);
  const until = paidUntil + CARD_GRACE_MS;
  const keep = running.plan === bought && running.expiresAt !== null && running.expiresAt > until;
  return { plan: bought, expiresAt: keep ? running.expiresAt : until };
}

/**
 * The plan after a card subscription moved from `from` to `to` (a change in Stripe's customer
 * portal): the new plan runs for the time already paid, never longer, since a change pays nothing
 * by itself (Stripe bills the difference on the next invoice). A plan not running on `from` at
 * `at` (lapsed, or another plan bought since) is left as it is.
 */
export function switchCardPlan(current: PlanState, from: PaidPlan, to: PaidPlan, at: number): PlanState {
  const running = effectivePlan(current, at);
  return running.plan === from ? { plan: to, expiresAt: running.expiresAt } : current;
}

/** The usage month of an instant: calendar month in UTC, so the count restarts at 00:00 UTC on the 1st. */
export function usageMonth(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}
