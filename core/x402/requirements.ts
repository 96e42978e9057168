import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';

/** The x402 protocol version served: v2 (headers PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE). */
export const X402_VERSION = 2;
/**
 * The longest an authorization is asked to stay valid. The official client signs `validBefore` =
 * now + maxTimeoutSeconds; a short window bounds how long a signed payload could still be used.
 */
export const X402_MAX_TIMEOUT_S = 300;
/**
 * Seconds a signed `validBefore` may pass now + `maxTimeoutSeconds`: the official client counts its
 * window from its own clock, which differs a little from ours. Never past the invoice's expiry:
 * the advertised `maxTimeoutSeconds` leaves this much room before it.
 */
export const CLOCK_SKEW_S = 30;

/** What an invoice asks of an x402 payer right now: the amount still due, to its own address, in its token. */
export interface X402Offer {
  invoiceId: string;
  /** CAIP-2: `eip155:<chain id>`. */
  network: `eip155:${number}`;
  chainId: number;
  /** The token contract (EIP-3009). */
  asset: string;
  payTo: string;
  /** Token base units still due. */
  amountDue: bigint;
  expiresAt: number;
  /** The token's EIP-712 domain. */
  domain: { name: string; version: string };
}

/**
 * The one authorization kind accepted, as x402's `exact` EVM scheme names it
 * (`extra.assetTransferMethod`): EIP-3009 `transferWithAuthorization`. A payload of any other kind
 * (Permit2) is refused (authorization.ts).
 */
const ASSET_TRANSFER_METHOD = 'eip3009';

/**
 * The one `accepts` entry: scheme `exact` (EIP-3009), timeout no longer than the time left to
 * expiry less the clock skew, so an authorization signed for `maxTimeoutSeconds` on a clock a little
 * ahead of ours still ends before the invoice does.
 */
export function requirementsOf(offer: X402Offer, now: number): PaymentRequirements {
  const secondsLeft = Math.floor((offer.expiresAt - now) / 1000) - CLOCK_SKEW_S;
  return {
    scheme: 'exact',
    network: offer.network,
    asset: offer.asset,
    amount: offer.amountDue.toString(),
    payTo: offer.payTo,
    maxTimeoutSeconds: Math.max(1, Math.min(X402_MAX_TIMEOUT_S, secondsLeft)),
    extra: { name: offer.domain.name, version: offer.domain.version, assetTransferMethod: ASSET_TRANSFER_METHOD },
  };
}

/** The PAYMENT-REQUIRED object (header and body), with the refusal's reason when a payment was refused. */
export function paymentRequiredOf(resourceUrl: string, requirements: PaymentRequirements, error?: string): PaymentRequired {
  return {
    x402Version: X402_VERSION,
    ...(error ? { error } : {}),
    resource: { url: resourceUrl, description: 'Payment of an invoice', mimeType: 'application/json' },
    accepts: [requirements],
  };
}
