import type { CheckoutView } from '../../shared/checkout.ts';

/**
 * Where a checkout page gets its data: an invoice id in, the display-only view out. The listener
 * reads its own database; Cloud supplies its own source for its tenants' invoices. Unknown ids
 * throw ServiceError('not_found'), storage failures ServiceError('lookup_failed').
 */
export interface CheckoutSource {
  view(invoiceId: string): Promise<CheckoutView>;
}
