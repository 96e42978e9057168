import type * as z from 'zod';
import type { CheckoutView, CreatedInvoice, NetworkName, StoredInvoice } from '../../shared/index.ts';

/** An invoice as a payer-facing text sees it: its checkout view, or the invoice the API returns. */
export type ShownInvoice = CheckoutView | z.infer<typeof CreatedInvoice> | StoredInvoice;

/**
 * How the checkout page, the MCP texts and the MCP tool descriptions speak of one chain's
 * invoices, so none of them branches on a chain: each asks the invoice's chain.
 */
export interface ChainDisplay {
  /** The whole amount of the invoice in its asset, as exact decimal text ("0.00050000", "12.500000"). */
  amountOf(invoice: ShownInvoice): string;
  /** The amount with its unit and what it was priced in: "0.00001000 BTC (1000 sats)", "12.500000 USDC (12.5 USD)". */
  pricedAmount(invoice: ShownInvoice): string;
  /** The network the invoice is really on, read from the invoice alone (a sandbox's local chain says so). */
  networkOf(invoice: ShownInvoice): NetworkName;
  /** What the page says the payer sends on: "Bitcoin", "USDC on Base (not Ethereum mainnet)". */
  sendOn(view: CheckoutView, network: NetworkName): string;
  /** What the payer pays on top of the amount: "network fee", "gas fee". */
  feeName: string;
  /** The amount the payer must send to the last digit (it identifies the invoice), or null when any covering amount will do. */
  exactAmountOf(invoice: ShownInvoice): string | null;
  /**
   * An amount of the invoice's asset as the payer reads it: "12.50" USDC for "12.500000", while an
   * exact amount (exactAmountOf) and Bitcoin's 8 decimals are shown in full.
   */
  readableAmount(invoice: ShownInvoice, amount: string): string;
  /** Lines a created invoice's text adds for the payer beyond amount, network and address (a fixed-address invoice's rules). */
  createdNotes(invoice: z.infer<typeof CreatedInvoice>): string[];
  /** Lines a stored invoice's status text adds beyond amount, network and address: how else it can be paid while open, how it was paid. */
  statusNotes(invoice: StoredInvoice): string[];
  /** How long a payment typically takes to confirm: "10 to 60 minutes", "about a minute". */
  confirmationTime: string;
  /**
   * What create_invoice's description tells a model about pricing an invoice on this chain ("give
   * amount_sats, …"); chains that say the same are listed together.
   */
  pricingHint: string;
}
