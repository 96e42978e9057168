import * as z from 'zod';
import type { StoredInvoice } from '../shared/index.ts';
import type { McpChain } from './mcp-chain.ts';
import { describeStoredInvoice } from './invoice-text.ts';

/** Statuses after which waiting longer cannot change the answer. */
export const SETTLED_STATUSES: ReadonlySet<string> = new Set(['confirmed', 'expired', 'failed']);

export const PaymentOutcome = z
  .enum(['confirmed', 'expired', 'failed', 'timeout'])
  .describe('"confirmed": paid. "expired" or "failed": will not be paid. "timeout": still pending or partial when timeout_s ran out; call again to keep waiting.');
export type PaymentOutcome = z.infer<typeof PaymentOutcome>;

type Invoice = z.infer<typeof StoredInvoice>;

/** The invoice's settled status as an outcome, or null while it may still be paid. */
export function settledOutcome(invoice: Invoice): PaymentOutcome | null {
  return SETTLED_STATUSES.has(invoice.status) ? (invoice.status as PaymentOutcome) : null;
}

/**
 * What wait_for_payment answers, whether it blocked or ran as a task: one shape for both, so an
 * agent reads the same structuredContent either way.
 */
export function paymentOutcomeResult(chains: readonly McpChain[], outcome: PaymentOutcome, invoice: Invoice, timeoutS: number) {
  return {
    structuredContent: { outcome, invoice } satisfies { outcome: PaymentOutcome; invoice: Invoice },
    content: [{ type: 'text' as const, text: `${outcome === 'timeout' ? `Still ${invoice.status} after ${timeoutS} s.` : `Invoice ${outcome}.`} ${describeStoredInvoice(chains, invoice)}` }],
  };
}
