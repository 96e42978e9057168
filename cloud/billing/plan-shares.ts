import * as z from 'zod';
import type { Kysely } from 'kysely';
import { ServiceError } from '../../core/errors.ts';
import type { FairShareBounds, ShareTenant, ShareTier } from '../../core/fair-shares.ts';
import { blankToUndefined, wholeNumber } from '../../edge/settings.ts';
import type { MerchantRow } from '../merchants/merchant.repository.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { effectivePlan, planNames, type PlanName } from './plans.ts';

/** A number per plan: how much of a resource one merchant on it may hold. */
export type PlanCaps = Record<PlanName, number>;

/**
 * How an instance's MCP sessions, listen streams, checkout streams and the x402 budget are shared
 * between merchants (core/fair-shares.ts): caps per plan, and the part of each total kept from
 * Free accounts.
 */
export interface FairShareSettings {
  /** CLOUD_FAIR_SHARE_RESERVE: percent of each instance-wide total Free merchants cannot take. */
  reservePercent: number;
  /** CLOUD_MCP_SESSIONS_PER_PLAN: open MCP sessions, and open listen streams, per merchant and instance. */
  mcpSessions: PlanCaps;
  /** CLOUD_CHECKOUT_STREAMS_PER_PLAN: open checkout streams of one merchant's invoices, per instance. */
  checkoutStreams: PlanCaps;
  /** CLOUD_X402_RATE_PER_PLAN: requests a minute to one merchant's x402 URLs, across instances. */
  x402PerMinute: PlanCaps;
}

/**
 * `free:10,starter:50,pro:100`: a whole number per plan, each plan at most once; a plan left out
 * keeps its default.
 */
function planCapsSetting(defaults: PlanCaps) {
  const pair = new RegExp(`^(${planNames.join('|')}):([1-9]\\d{0,6})$`);
  const example = planNames.map((plan) => `${plan}:${defaults[plan]}`).join(',');
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .optional()
      .transform((text, ctx): PlanCaps => {
        const caps = { ...defaults };
        const seen = new Set<string>();
        for (const part of text ? text.split(',').map((item) => item.trim()) : []) {
          const match = pair.exec(part);
          if (!match || seen.has(match[1]!)) {
            ctx.addIssue({ code: 'custom', message: `must be <plan>:<number> pairs, each plan once, e.g. ${example}` });
            return caps;
          }
          seen.add(match[1]!);
          caps[match[1] as PlanName] = Number(match[2]);
        }
        return caps;
      }),
  );
}

export const fairShareSettings = {
  CLOUD_FAIR_SHARE_RESERVE: z.preprocess(blankToUndefined, wholeNumber(0, 90).default(20)),
  CLOUD_MCP_SESSIONS_PER_PLAN: planCapsSetting({ free: 10, starter: 50, pro: 100 }),
  CLOUD_CHECKOUT_STREAMS_PER_PLAN: planCapsSetting({ free: 25, starter: 100, pro: 250 }),
  CLOUD_X402_RATE_PER_PLAN: planCapsSetting({ free: 60, starter: 300, pro: 600 }),
};

export function fairShareSettingsOf(raw: z.infer<z.ZodObject<typeof fairShareSettings>>): FairShareSettings {
  return {
    reservePercent: raw.CLOUD_FAIR_SHARE_RESERVE,
    mcpSessions: raw.CLOUD_MCP_SESSIONS_PER_PLAN,
    checkoutStreams: raw.CLOUD_CHECKOUT_STREAMS_PER_PLAN,
    x402PerMinute: raw.CLOUD_X402_RATE_PER_PLAN,
  };
}

/** The bounds of a resource whose instance-wide total is `total`. */
export const shareBounds = (settings: FairShareSettings, total: number): FairShareBounds => ({ total, reservePercent: settings.reservePercent });

/** A merchant's tier of a resource capped by `caps`: a lapsed paid plan is Free. */
export function tierOf(caps: PlanCaps, merchant: Pick<MerchantRow, 'plan' | 'plan_expires_at'>, now: number): ShareTier {
  const { plan } = effectivePlan({ plan: merchant.plan as PlanName, expiresAt: merchant.plan_expires_at === null ? null : Number(merchant.plan_expires_at) }, now);
  return { plan, cap: caps[plan], paying: plan !== 'free' };
}

/**
 * The merchant of a public invoice (checkout stream, x402 URL), as a tenant of a resource capped
 * by `caps`; an unknown invoice is `not_found`, as its view is.
 */
export async function invoiceTenant(db: Kysely<CloudTables>, caps: PlanCaps, invoiceId: string, now: number): Promise<ShareTenant> {
  const merchant = await db
    .selectFrom('invoices')
    .innerJoin('cloud_merchants', 'cloud_merchants.merchant_id', 'invoices.merchant_id')
    .select(['cloud_merchants.merchant_id', 'cloud_merchants.plan', 'cloud_merchants.plan_expires_at'])
    .where('invoices.invoice_id', '=', invoiceId)
    .executeTakeFirst();
  if (!merchant) throw new ServiceError('not_found', 'No such invoice.');
  return { id: merchant.merchant_id, tier: tierOf(caps, merchant, now) };
}
