import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes, isEIP3009Payload, type ExactEIP3009Payload } from '@x402/evm';
import { getAddress, isAddress, isHex, recoverTypedDataAddress } from 'viem';
import { ServiceError } from '../errors.ts';
import { X402_VERSION } from './requirements.ts';

/** x402's reasons (the `exact` EVM scheme's `invalidReason` values), so a client reads one vocabulary. */
export const refusalReasons = {
  payload: 'invalid_payload',
  version: 'invalid_x402_version',
  scheme: 'invalid_exact_evm_scheme',
  network: 'invalid_exact_evm_network_mismatch',
  asset: 'invalid_exact_evm_asset_mismatch',
  recipient: 'invalid_exact_evm_recipient_mismatch',
  value: 'invalid_exact_evm_payload_authorization_value_mismatch',
  validBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  validAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  signature: 'invalid_exact_evm_signature',
  nonceUsed: 'invalid_exact_evm_nonce_already_used',
} as const;

export type RefusalReason = (typeof refusalReasons)[keyof typeof refusalReasons];

/** A payment refused before anything was sent: 402 with the reason, in the envelope and in PAYMENT-REQUIRED. */
export const refused = (reason: RefusalReason, message: string) => new ServiceError('invalid_payment', message, { details: { reason } });

/**
 * Seconds a signed `validBefore` may pass the invoice's expiry: the payer's clock and ours differ a
 * little, and the official client counts its window from its own clock.
 */
export const CLOCK_SKEW_S = 30;
/** An authorization this close to its end could lapse before its transaction is mined (x402's own margin). */
const MIN_VALIDITY_LEFT_S = 6;

export interface CheckedPayment {
  payload: PaymentPayload;
  authorization: ExactEIP3009Payload['authorization'];
  signature: `0x${string}`;
  payer: `0x${string}`;
}

const sameAddress = (a: unknown, b: string) => typeof a === 'string' && isAddress(a, { strict: false }) && getAddress(a) === getAddress(b);
const uint = (text: unknown) => (typeof text === 'string' && /^\d{1,78}$/.test(text) ? BigInt(text) : null);

/**
 * Everything about a decoded PAYMENT-SIGNATURE that can be known without the chain: it must pay
 * exactly these requirements (scheme, network, token, recipient, value), inside the invoice's life,
 * signed by its `from` over the token's EIP-712 domain. Throws the refusal; nothing is sent.
 */
export async function checkPayment(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  life: { now: number; expiresAt: number; chainId: number },
): Promise<CheckedPayment> {
  if (payload?.x402Version !== X402_VERSION) throw refused(refusalReasons.version, `x402Version must be ${X402_VERSION}.`);
  const accepted = payload.accepted;
  if (typeof accepted !== 'object' || accepted === null) throw refused(refusalReasons.payload, 'The payload names no accepted requirements.');
  if (accepted.scheme !== requirements.scheme) throw refused(refusalReasons.scheme, `Only the ${requirements.scheme} scheme is accepted.`);
  if (accepted.network !== requirements.network) throw refused(refusalReasons.network, `This invoice is paid on ${requirements.network}.`);
  if (!sameAddress(accepted.asset, requirements.asset)) throw refused(refusalReasons.asset, `This invoice is paid in the token ${requirements.asset}.`);
  const inner = payload.payload as Record<string, unknown> | undefined;
  if (!inner || !isEIP3009Payload(inner as never)) throw refused(refusalReasons.payload, 'The payload is not an EIP-3009 authorization with its signature.');
  const { authorization, signature } = inner as unknown as ExactEIP3009Payload;
  if (!isHex(signature) || typeof authorization.from !== 'string' || !isAddress(authorization.from, { strict: false }) || !isHex(authorization.nonce) || authorization.nonce.length !== 66) {
    throw refused(refusalReasons.payload, 'The authorization is malformed (from, nonce or signature).');
  }
  if (!sameAddress(authorization.to, requirements.payTo) || !sameAddress(accepted.payTo, requirements.payTo)) {
    throw refused(refusalReasons.recipient, `The authorization must pay ${requirements.payTo}, the invoice's address.`);
  }
  const value = uint(authorization.value);
  if (value === null || value !== BigInt(requirements.amount) || accepted.amount !== requirements.amount) {
    throw refused(refusalReasons.value, `The authorization must be for exactly ${requirements.amount} base units, the amount due.`);
  }
  const validAfter = uint(authorization.validAfter);
  const validBefore = uint(authorization.validBefore);
  const nowS = BigInt(Math.floor(life.now / 1000));
  if (validAfter === null || validAfter > nowS) throw refused(refusalReasons.validAfter, 'The authorization is not valid yet.');
  if (validBefore === null || validBefore < nowS + BigInt(MIN_VALIDITY_LEFT_S)) throw refused(refusalReasons.validBefore, 'The authorization has expired or is about to.');
  if (validBefore > BigInt(Math.floor(life.expiresAt / 1000) + CLOCK_SKEW_S)) {
    throw refused(refusalReasons.validBefore, "The authorization stays valid past the invoice's expiry; sign it for at most maxTimeoutSeconds.");
  }
  const from = getAddress(authorization.from);
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name: String(requirements.extra.name), version: String(requirements.extra.version), chainId: life.chainId, verifyingContract: getAddress(requirements.asset) },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: { from, to: getAddress(authorization.to), value, validAfter, validBefore, nonce: authorization.nonce },
      signature,
    });
  } catch {
    throw refused(refusalReasons.signature, 'The signature cannot be read.');
  }
  if (signer !== from) throw refused(refusalReasons.signature, "The signature is not from the authorization's `from`.");
  return { payload, authorization, signature, payer: from };
}
