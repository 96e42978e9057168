import type { Kysely } from 'kysely';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { X402Offer } from './requirements.ts';
import { settlerGasOnInvoice, settlerGasSince } from './settlement.repository.ts';
import { SETTLEMENT_GAS } from './settlers.ts';
import { X402_SETTLER_GAS_BUDGET, type X402Settings } from './x402-settings.ts';
import type { X402Chain } from './x402-settle.ts';
import type { X402Tables } from './x402.tables.ts';

const HOUR_MS = 3_600_000;

/**
 * Refuses before anything is sent when the built-in settler's gas budget is spent on this invoice
 * or, on the chain, this hour: settling pauses, and the payer may send the transfer themselves
 * (the invoice takes it like any payment). A facilitator pays its own gas: no bound here.
 */
export async function checkGasBudget(context: { db: Kysely<X402Tables>; now: number; logger: Logger; budget: X402Settings['gasBudget'] }, chain: X402Chain, offer: X402Offer) {
  if (chain.settler.kind !== 'settler') return;
  const { db, budget } = context;
  const [onInvoice, thisHour] = await Promise.all([settlerGasOnInvoice(db, offer.invoiceId), settlerGasSince(db, offer.network, context.now - HOUR_MS)]);
  const spentOn = onInvoice + SETTLEMENT_GAS > budget.perInvoice ? 'this invoice' : thisHour + SETTLEMENT_GAS > budget.perHour ? 'this hour' : null;
  if (spentOn === null) return;
  context.logger.warn('x402: settling paused, the settler gas budget is spent', { invoice_id: offer.invoiceId, network: offer.network, spent_on: spentOn });
  throw new ServiceError(
    'settlement_unavailable',
    `Settling is paused: the settler's gas budget (${X402_SETTLER_GAS_BUDGET}) for ${spentOn} is spent. Pay with a plain transfer of ${offer.amountDue} base units of ${offer.asset} to ${offer.payTo} instead.`,
    { retryAfterS: HOUR_MS / 1000, details: { reason: 'settler_gas_budget' } },
  );
}
