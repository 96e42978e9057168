import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes, type ExactEIP3009Payload } from '@x402/evm';
import { getAddress, isAddress, recoverTypedDataAddress } from 'viem';
import { ServiceError } from '../errors.ts';
import { CLOCK_SKEW_S, X402_VERSION } from './requirements.ts';

/** x402's reasons (the `exact` EVM scheme's `invalidReason` values), so a client reads one vocabulary. */
export const refusalReasons = {
  payload: 'invalid_payload',
  version: 'invalid_x402_version',
  scheme: 'invalid_exact_evm_scheme',
  /** The payload carries another authorization kind than the one offered (`extra.assetTransferMethod`). */
  transferMethod: 'unsupported_asset_transfer_method',
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

/** An authorization this close to its end could lapse before its transaction is mined (x402's own margin). */
const MIN_VALIDITY_LEFT_S = 6;

type Authorization = ExactEIP3009Payload['authorization'];

export interface CheckedPayment {
  /**
   * What goes to the settler or facilitator: rebuilt from the checked fields alone (our own
   * requirements as `accepted`, the EIP-3009 authorization and its signature), so nothing the
   * checks did not read (another authorization kind, extensions) reaches it.
   */
  payload: PaymentPayload;
  authorization: Authorization;
  signature: `0x${string}`;
  payer: `0x${string}`;
  validBefore: bigint;
}

const AUTHORIZATION_FIELDS = ['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const sameAddress = (a: unknown, b: string) => typeof a === 'string' && isAddress(a, { strict: false }) && getAddress(a) === getAddress(b);
const uint = (text: unknown) => (typeof text === 'string' && /^\d{1,78}$/.test(text) ? BigInt(text) : null);
const hexOf = (text: unknown, bytes?: number) => typeof text === 'string' && (bytes === undefined ? /^0x([0-9a-fA-F]{2})+$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`)).test(text);

/**
 * The one shape the `exact` scheme with EIP-3009 takes: `{ authorization, signature }` and nothing
 * else. A payload with another kind beside or instead of it (`permit2Authorization`) is refused:
 * the x402 library picks its path from the payload's keys, and would settle what we never checked.
 */
function eip3009Of(inner: unknown): { authorization: Authorization; signature: `0x${string}` } {
  if (!isRecord(inner)) throw refused(refusalReasons.payload, 'The payload must be an object with an EIP-3009 authorization and its signature.');
  const others = Object.keys(inner).filter((key) => key !== 'authorization' && key !== 'signature');
  if (others.length > 0) {
    throw refused(refusalReasons.transferMethod, `Only an EIP-3009 authorization (assetTransferMethod eip3009) is accepted; the payload also carries ${others.slice(0, 3).join(', ')}.`);
  }
  const { authorization, signature } = inner;
  if (!isRecord(authorization) || !hexOf(signature)) throw refused(refusalReasons.payload, 'The payload is not an EIP-3009 authorization with its signature.');
  const fields = Object.keys(authorization);
  if (fields.length !== AUTHORIZATION_FIELDS.length || !AUTHORIZATION_FIELDS.every((field) => typeof authorization[field] === 'string')) {
    throw refused(refusalReasons.payload, `The authorization must have exactly the string fields ${AUTHORIZATION_FIELDS.join(', ')}.`);
  }
  if (!isAddress(authorization.from as string, { strict: false }) || !hexOf(authorization.nonce, 32)) {
    throw refused(refusalReasons.payload, 'The authorization is malformed (from or nonce).');
  }
  return { authorization: authorization as unknown as Authorization, signature: signature as `0x${string}` };
}

/** The payload's `accepted` must be these requirements (scheme, network, token, recipient, amount). */
function checkAccepted(accepted: unknown, requirements: PaymentRequirements) {
  if (!isRecord(accepted)) throw refused(refusalReasons.payload, 'The payload names no accepted requirements.');
  if (accepted.scheme !== requirements.scheme) throw refused(refusalReasons.scheme, `Only the ${requirements.scheme} scheme is accepted.`);
  if (accepted.network !== requirements.network) throw refused(refusalReasons.network, `This invoice is paid on ${requirements.network}.`);
  if (!sameAddress(accepted.asset, requirements.asset)) throw refused(refusalReasons.asset, `This invoice is paid in the token ${requirements.asset}.`);
  const method = isRecord(accepted.extra) ? accepted.extra.assetTransferMethod : undefined;
  if (method !== undefined && method !== requirements.extra.assetTransferMethod) {
    throw refused(refusalReasons.transferMethod, `Only assetTransferMethod ${String(requirements.extra.assetTransferMethod)} is accepted.`);
  }
  if (!sameAddress(accepted.payTo, requirements.payTo)) throw refused(refusalReasons.recipient, `The authorization must pay ${requirements.payTo}, the invoice's address.`);
  if (accepted.amount !== requirements.amount) throw refused(refusalReasons.value, `The authorization must be for exactly ${requirements.amount} base units, the amount due.`);
}

/**
 * The authorization's window: valid now (`validAfter` not in the future: the token refuses it
 * before then, and the official client signs 0), for long enough to be mined, and for no longer
 * than the advertised `maxTimeoutSeconds` (plus the clock skew) and never past the invoice's
 * expiry. The invoice's lock is held for as long as this window (settlement.repository.ts).
 */
function checkWindow(authorization: Authorization, requirements: PaymentRequirements, life: { now: number; expiresAt: number }): bigint {
  const validAfter = uint(authorization.validAfter);
  const validBefore = uint(authorization.validBefore);
  const nowS = BigInt(Math.floor(life.now / 1000));
  if (validAfter === null || validAfter > nowS) throw refused(refusalReasons.validAfter, 'The authorization is not valid yet (validAfter is in the future).');
  if (validBefore === null || validBefore < nowS + BigInt(MIN_VALIDITY_LEFT_S)) throw refused(refusalReasons.validBefore, 'The authorization has expired or is about to.');
  const latest = nowS + BigInt(requirements.maxTimeoutSeconds + CLOCK_SKEW_S);
  if (validBefore > latest) throw refused(refusalReasons.validBefore, `The authorization stays valid too long; sign validBefore at most maxTimeoutSeconds (${requirements.maxTimeoutSeconds} s) from now.`);
  if (validBefore > BigInt(Math.floor(life.expiresAt / 1000))) throw refused(refusalReasons.validBefore, "The authorization stays valid past the invoice's expiry.");
  return validBefore;
}

/**
 * Everything about a decoded PAYMENT-SIGNATURE that can be known without the chain: it must pay
 * exactly these requirements (scheme, network, token, recipient, value), with the one
 * authorization kind offered, inside its window, signed by its `from` over the token's EIP-712
 * domain. Any input, however malformed, ends in a refusal (402); nothing is sent.
 */
export async function checkPayment(payload: unknown, requirements: PaymentRequirements, life: { now: number; expiresAt: number; chainId: number }): Promise<CheckedPayment> {
  if (!isRecord(payload) || payload.x402Version !== X402_VERSION) throw refused(refusalReasons.version, `x402Version must be ${X402_VERSION}.`);
  checkAccepted(payload.accepted, requirements);
  const { authorization, signature } = eip3009Of(payload.payload);
  if (!sameAddress(authorization.to, requirements.payTo)) throw refused(refusalReasons.recipient, `The authorization must pay ${requirements.payTo}, the invoice's address.`);
  const value = uint(authorization.value);
  if (value === null || value !== BigInt(requirements.amount)) {
    throw refused(refusalReasons.value, `The authorization must be for exactly ${requirements.amount} base units, the amount due.`);
  }
  const validBefore = checkWindow(authorization, requirements, life);
  const from = getAddress(authorization.from);
  const to = getAddress(authorization.to);
  const signed = { from, to, value: authorization.value, validAfter: authorization.validAfter, validBefore: authorization.validBefore, nonce: authorization.nonce };
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name: String(requirements.extra.name), version: String(requirements.extra.version), chainId: life.chainId, verifyingContract: getAddress(requirements.asset) },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: { from, to, value, validAfter: BigInt(authorization.validAfter), validBefore, nonce: authorization.nonce },
      signature,
    });
  } catch {
    throw refused(refusalReasons.signature, 'The signature cannot be read.');
  }
  if (signer !== from) throw refused(refusalReasons.signature, "The signature is not from the authorization's `from`.");
  const forwarded: PaymentPayload = { x402Version: X402_VERSION, accepted: requirements, payload: { authorization: signed, signature } };
  return { payload: forwarded, authorization: signed, signature, payer: from, validBefore };
}
