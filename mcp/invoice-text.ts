import type * as z from 'zod';
import { btcNetworkName, evmChainName, evmNetworkOfUri, networkLabel, type CreatedInvoice, type NetworkName, type StoredInvoice, type X402PaymentRequired } from '../shared/index.ts';

type AnyInvoice = z.infer<typeof CreatedInvoice> | z.infer<typeof StoredInvoice>;

/** The amount the payer sends, with its unit: "0.00001000 BTC (1000 sats)" or "12.500000 USDC (12.5 USD)". */
export function describeAmount(invoice: AnyInvoice): string {
  if ('amount_btc' in invoice) return `${invoice.amount_btc} BTC (${invoice.amount_sats} sats)`;
  return `${invoice.amount_usdc} ${invoice.asset} (${invoice.amount_usd} USD)`;
}

/**
 * "Bitcoin", or "Bitcoin regtest — sandbox, not real bitcoin —": a Bitcoin invoice carries its network,
 * a created EVM invoice its payment URI, which names the chain id (the sandbox's is a local one).
 */
function network(invoice: AnyInvoice): string {
  const named: NetworkName =
    'amount_btc' in invoice ? btcNetworkName(invoice.network) : 'qr_uri' in invoice ? evmNetworkOfUri(invoice.qr_uri) : evmChainName(invoice.chain);
  return named.note ? `${networkLabel(named)} —` : named.name;
}

/** Plain text for clients that ignore structuredContent: everything a payer needs, nothing secret. */
export function describeCreatedInvoice(invoice: z.infer<typeof CreatedInvoice>): string {
  const lines = [
    `Invoice ${invoice.invoice_id} created, status ${invoice.status}.`,
    `Pay ${describeAmount(invoice)} on ${network(invoice)} to ${invoice.receive_address}.`,
  ];
  if ('mode' in invoice && invoice.mode === 'fixed-address') {
    lines.push(
      `Fixed-address mode: send exactly ${invoice.amount_usdc} ${invoice.asset} (token contract ${invoice.token_address}); the exact amount is what identifies this invoice, any other amount is not credited to it.`,
    );
  }
  lines.push(`Payment URI: ${invoice.qr_uri}`, `Expires at ${invoice.expires_at}.`);
  return lines.join('\n');
}

export function describeStoredInvoice(invoice: z.infer<typeof StoredInvoice>): string {
  const lines = [
    `Invoice ${invoice.invoice_id}: status ${invoice.status}.`,
    `Amount ${describeAmount(invoice)} on ${network(invoice)} to ${invoice.receive_address}.`,
  ];
  if (invoice.status === 'confirmed') lines.push(`Paid at ${invoice.paid_at} in transaction ${invoice.tx_hash}.`);
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
