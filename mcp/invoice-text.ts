import type * as z from 'zod';
import { networkLabel, type CreatedInvoice, type InvoicePrice, type StoredInvoice, type X402PaymentRequired } from '../shared/index.ts';
import type { ShownInvoice } from '../core/invoices/chain-display.ts';
import { chainNamed } from '../core/invoices/chain-module.ts';
import type { McpChain } from './mcp-chain.ts';

/** The price fields of an answer, null where an older listener left them out. */
const invoicePrice = (invoice: Partial<InvoicePrice> & { asset: string }): InvoicePrice & { asset: string } => ({
  asset: invoice.asset,
  price_amount: invoice.price_amount ?? null,
  price_currency: invoice.price_currency ?? null,
  rate: invoice.rate ?? null,
  rate_sources: invoice.rate_sources ?? null,
  rate_at: invoice.rate_at ?? null,
});

const displayOf = (chains: readonly McpChain[], invoice: ShownInvoice) => chainNamed(chains, invoice.chain).display;

/** The amount the payer sends, with its unit: "0.00001000 BTC (1000 sats)" or "12.500000 USDC (12.5 USD)". */
export const describeAmount = (chains: readonly McpChain[], invoice: ShownInvoice): string => displayOf(chains, invoice).pricedAmount(invoice);

/** "Bitcoin", or "Bitcoin regtest — sandbox, not real bitcoin —": the network the invoice is really on. */
function network(chains: readonly McpChain[], invoice: ShownInvoice): string {
  const named = displayOf(chains, invoice).networkOf(invoice);
  return named.note ? `${networkLabel(named)} —` : named.name;
}

/** The shop's order the invoice is for, when it names one: an agent matches the payment to it by this. */
const orderLine = (invoice: { order_id?: string | null }): string[] => (invoice.order_id ? [`For order ${JSON.stringify(invoice.order_id)}.`] : []);
/** "Priced at 25.00 USD, at 97000 USD per BTC (median of bitstamp, coinbase, kraken at …)." when the invoice had a fiat price. */
export function describePrice(invoice: InvoicePrice & { asset: string }): string[] {
  if (!invoice.price_amount || !invoice.price_currency) return [];
  const rate = invoice.rate ? `, at ${invoice.rate} ${invoice.price_currency} per ${invoice.asset} (median of ${invoice.rate_sources?.join(', ')} at ${invoice.rate_at}; fixed for the invoice's life)` : ' (1:1)';
  return [`Priced at ${invoice.price_amount} ${invoice.price_currency}${rate}.`];
}

/** Plain text for clients that ignore structuredContent: everything a payer needs, nothing secret. */
export function describeCreatedInvoice(chains: readonly McpChain[], invoice: z.infer<typeof CreatedInvoice>): string {
  return [
    `Invoice ${invoice.invoice_id} created, status ${invoice.status}.`,
    ...orderLine(invoice),
    `Pay ${describeAmount(chains, invoice)} on ${network(chains, invoice)} to ${invoice.receive_address}.`,
    ...describePrice(invoicePrice(invoice)),
    ...displayOf(chains, invoice).createdNotes(invoice),
    `Payment URI: ${invoice.qr_uri}`,
    `Expires at ${invoice.expires_at}.`,
  ].join('\n');
}

export function describeStoredInvoice(chains: readonly McpChain[], invoice: StoredInvoice): string {
  const lines = [
    `Invoice ${invoice.invoice_id}: status ${invoice.status}.`,
    ...orderLine(invoice),
    `Amount ${describeAmount(chains, invoice)} on ${network(chains, invoice)} to ${invoice.receive_address}.`,
    ...describePrice(invoicePrice(invoice)),
  ];
  lines.push(...displayOf(chains, invoice).statusNotes(invoice));
  // A Lightning payment has no transaction: its chain's notes say how it was paid.
  if (invoice.status === 'confirmed') lines.push(`Paid at ${invoice.paid_at}${invoice.tx_hash ? ` in transaction ${invoice.tx_hash}` : ''}.`);
  else lines.push(`Expires at ${invoice.expires_at}.`);
  return lines.join('\n');
}

/**
 * How another agent pays the invoice with x402: the URL, what its requirements ask, and what the
 * paying agent needs. Empty when x402 cannot pay it now.
 */
export function describeX402(invoice: { x402_url: string | null }, required: X402PaymentRequired | null): string[] {
  if (!invoice.x402_url || !required) return [];
  const [offer] = required.accepts;
  if (!offer) return [];
  return [
    `Another agent can pay this invoice with an x402 client (HTTP 402, e.g. @x402/fetch): GET ${invoice.x402_url} with its wallet; it signs an EIP-3009 authorization of exactly ${offer.amount} base units of the token ${offer.asset} to ${offer.payTo} on ${offer.network}, and the service settles it (the payer needs no API key and no gas).`,
    'The payer must allow that token in its x402 spend controls (the official client pays only its default tokens, at most $1 a payment, unless told otherwise). Hand over the x402_url; the payment requirements are in structuredContent.x402.',
  ];
}
