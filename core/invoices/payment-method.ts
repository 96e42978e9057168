import type * as z from 'zod';
import type { CreatedInvoice } from '../../shared/index.ts';
import type { InvoiceCreation } from './chain-adapter.ts';
import type { InvoiceRow } from './invoice.repository.ts';

/**
 * One way of paying on one chain, named `chain:method` (`base:fixed-address`, `btc:derived-address`),
 * as BTCPay Server names a payment method by its currency and payment type.
 */
export type PaymentMethodId = `${string}:${string}`;

export const paymentMethodId = (chain: string, method: string): PaymentMethodId => `${chain}:${method}`;

/**
 * A payment method of one chain family. `Settings`: one merchant's settings of a chain; `Payment`:
 * what the chain's watcher (or the method's own settlement) sees paid. Chain-neutral: the family
 * gives the types, the method the rules.
 */
export interface PaymentMethod<Settings, Payment> {
  /** Unique within the family: 'derived-address', 'fixed-address', 'x402'. */
  readonly method: string;
  /** Whether these settings offer the method for invoices of `asset` (the contract's name: BTC, USDC…); a chain's receiver takes the first that does. */
  offers(settings: Settings, asset: string): boolean;
  /** The matching rule: whether `payment` pays toward `invoice`, an open invoice this method serves. */
  matches(invoice: InvoiceRow, payment: Payment): boolean;
  /** What the stored invoice shows for this method alone (nonce, x402_url…); {} when nothing. */
  display(invoice: InvoiceRow): Record<string, unknown>;
}

/**
 * A method that stores invoices: it gives them their receive address (and amount) when they are
 * created. `Order`: the invoice request as the chain's receiver checked it (asset, amount in units).
 */
export interface ReceivingMethod<Settings, Payment, Order> extends PaymentMethod<Settings, Payment> {
  /** Whether a stored invoice was created by this method. */
  owns(invoice: InvoiceRow): boolean;
  /** Allocates the address (leases the nonce…) and stores the invoice, in one transaction. */
  receive(creation: InvoiceCreation, settings: Settings, order: Order): Promise<z.infer<typeof CreatedInvoice>>;
}

/** The first method, in the chain's order of preference, that these settings offer for `asset`. */
export function methodFor<Settings, Method extends Pick<PaymentMethod<Settings, never>, 'offers'>>(methods: readonly Method[], settings: Settings, asset: string): Method | undefined {
  return methods.find((method) => method.offers(settings, asset));
}

/** The receiving method that created a stored invoice. */
export function methodOf<Method extends Pick<ReceivingMethod<never, never, never>, 'owns'>>(methods: readonly Method[], invoice: InvoiceRow): Method {
  const method = methods.find((candidate) => candidate.owns(invoice));
  if (!method) throw new Error(`invoice ${invoice.invoice_id}: no payment method of its chain created it`);
  return method;
}

/** The ids of the methods these settings offer on `chain` for any of `assets`. */
export function offeredMethodIds<Settings>(chain: string, methods: ReadonlyArray<Pick<PaymentMethod<Settings, never>, 'method' | 'offers'>>, settings: Settings, assets: readonly string[]): PaymentMethodId[] {
  return methods.filter((method) => assets.some((asset) => method.offers(settings, asset))).map((method) => paymentMethodId(chain, method.method));
}
