import type { Kysely } from 'kysely';
import type { CheckoutView } from '../../shared/checkout.ts';
import { chainNamed, type ChainModule } from '../../core/invoices/chain-module.ts';
import type { CoreTables } from '../../core/schema.ts';
import type { InvoiceRow } from '../../core/invoices/invoice.repository.ts';
import type { PayableFacts } from '../../core/invoices/invoice.service.ts';

/** Block-explorer base URL per chain name; a chain left out has none configured. */
export type Explorers = Readonly<Partial<Record<string, string | null>>>;

export interface ViewContext {
  /** The chains the service runs: the row's own builds the view. */
  chains: readonly Pick<ChainModule, 'chain' | 'paidSoFar' | 'checkoutView'>[];
  shopName: string;
  explorers: Explorers;
  now: number;
  /** The invoice's x402 URL, when the edition serves x402 (core/x402). */
  x402Url?: (invoice: PayableFacts) => string | null;
}

/** A stored invoice's checkout view, with what the payer has sent so far read from its chain's records. */
export async function checkoutView(db: Kysely<CoreTables>, row: InvoiceRow, context: ViewContext): Promise<CheckoutView> {
  const chain = chainNamed(context.chains, row.chain);
  const paid = await chain.paidSoFar(db, row);
  const view = chain.checkoutView(row, { shopName: context.shopName, now: context.now, paid, explorerUrl: context.explorers[row.chain] ?? null });
  return { ...view, x402_url: context.x402Url?.(view) ?? null };
}
