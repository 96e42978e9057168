import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { CoreTables } from '../../core/schema.ts';
import type { InvoiceService } from '../../core/invoices/invoice.service.ts';
import type { CheckoutSource } from '../../edge/checkout/checkout-source.ts';
import { checkoutView, type ViewContext } from '../../edge/checkout/checkout-view.ts';
import type { ChainModule } from '../../core/invoices/chain-module.ts';

export interface ListenerCheckoutDeps {
  invoices: Pick<InvoiceService, 'find'>;
  chains: readonly ChainModule[];
  db: Kysely<CoreTables>;
  merchantId: string;
  clock: Clock;
  shopName: string;
  explorers: ViewContext['explorers'];
  x402Url: ViewContext['x402Url'];
}

/** Checkout views of the listener's own invoices, read (and lazily expired) like GET /invoice/:id. */
export function createListenerCheckoutSource(deps: ListenerCheckoutDeps): CheckoutSource {
  return {
    async view(invoiceId) {
      const row = await deps.invoices.find(invoiceId);
      return checkoutView(deps.db, row, { chains: deps.chains, shopName: deps.shopName, explorers: deps.explorers, now: deps.clock.now(), x402Url: deps.x402Url });
    },
  };
}