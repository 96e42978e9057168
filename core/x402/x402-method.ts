import { getAddress } from 'viem';
import type { InvoiceRow } from '../invoices/invoice.repository.ts';
import type { PaymentMethod } from '../invoices/payment-method.ts';

/** The asset x402 pays: EIP-3009's `transferWithAuthorization` is USDC's. */
const PAYABLE_ASSET = 'USDC';

/** A settlement's token transfer as our own node shows it, with the payer who signed and the amount asked. */
export interface X402Transfer {
  token: string;
  from: string;
  to: string;
  value: bigint;
  payer: string;
  amount: bigint;
}

/** What x402 needs of an invoice to say whether it can pay it now. */
export interface X402Payable {
  invoice_id: string;
  chain: string;
  asset: string;
  status: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** x402 as a payment method: the chain's x402 settlement (absent: none set up) is its setting. */
export interface X402Method extends PaymentMethod<unknown, X402Transfer> {
  /** The invoice's x402 URL while x402 can pay it, else null. */
  urlOf(invoice: X402Payable): string | null;
}

export interface X402MethodDeps {
  /** The chains with x402 settlement set up, by name. */
  chains: ReadonlyMap<string, unknown>;
  now(): number;
  /** The public x402 URL of an invoice; null when the service does not know its own public address. */
  resourceUrl(invoiceId: string): string | null;
}

/**
 * x402 (EVM USDC): stores no invoice of its own; it pays, at the invoice's `x402_url`, a USDC
 * invoice another method stored, with an EIP-3009 authorization the service settles. A settlement
 * matches the invoice when our node shows the transfer of the amount asked, from the signer, in the
 * invoice's token, to its address; the invoice itself moves only through the chain's watcher.
 */
export function x402Method(deps: X402MethodDeps): X402Method {
  const offers = (chainSettlement: unknown, asset: string) => chainSettlement !== undefined && asset === PAYABLE_ASSET;
  const urlOf = (invoice: X402Payable) => {
    if (!offers(deps.chains.get(invoice.chain), invoice.asset)) return null;
    if ((invoice.status !== 'pending' && invoice.status !== 'partial') || invoice.expiresAt <= deps.now()) return null;
    return deps.resourceUrl(invoice.invoice_id);
  };
  return {
    method: 'x402',
    offers,
    matches: (invoice: InvoiceRow, transfer: X402Transfer) =>
      invoice.token_address !== null &&
      getAddress(transfer.token) === getAddress(invoice.token_address) &&
      getAddress(transfer.to) === getAddress(invoice.receive_address) &&
      getAddress(transfer.from) === transfer.payer &&
      transfer.value === transfer.amount,
    display: (invoice) => ({ x402_url: urlOf({ ...invoice, expiresAt: invoice.expires_at }) }),
    urlOf,
  };
}
