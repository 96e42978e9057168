import { randomBytes } from 'node:crypto';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { authorizationTypes } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

/** A fresh random EVM key and its account. */
export function randomAccount() {
  const key = `0x${randomBytes(32).toString('hex')}` as const;
  return { key, account: privateKeyToAccount(key) };
}

/**
 * A paying agent as the x402 docs set one up: the official client (@x402/fetch) with the `exact`
 * EVM scheme, its spend controls opened to the (local, non-default) test token with a per-payment
 * cap. `sent` records each PAYMENT-SIGNATURE it sent, so a test can replay one.
 */
export function x402Agent(key: `0x${string}`, allowed: { network: `${string}:${string}`; asset: string; maxUnits?: bigint }) {
  const account = privateKeyToAccount(key);
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  client.setSpendControls({ allowedAssets: [{ network: allowed.network, asset: allowed.asset, maxAmountPerPayment: String(allowed.maxUnits ?? 1_000_000_000n) }] });
  const sent: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const header = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('PAYMENT-SIGNATURE');
    if (header) sent.push(header);
    return fetch(input, init);
  };
  return { address: account.address, pay: wrapFetchWithPayment(recording, client), sent };
}

export { decodePaymentRequiredHeader, decodePaymentResponseHeader };

export interface Requirements {
  scheme: string;
  network: `${string}:${string}`;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface AuthorizationFields {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

/**
 * A PAYMENT-SIGNATURE written by hand: an EIP-3009 authorization for `requirements`, with any field
 * overridden and signed by `signerKey` (the payer's own by default), so each bad input differs from
 * a good payment in exactly one thing and is otherwise well signed.
 */
export async function handSignedPayment(
  payerKey: `0x${string}`,
  requirements: Requirements,
  options: { authorization?: Partial<AuthorizationFields>; accepted?: Partial<Requirements>; signerKey?: `0x${string}`; x402Version?: number } = {},
): Promise<string> {
  const payer = privateKeyToAccount(payerKey);
  const signer = privateKeyToAccount(options.signerKey ?? payerKey);
  const now = Math.floor(Date.now() / 1000);
  const authorization: AuthorizationFields = {
    from: payer.address,
    to: requirements.payTo as `0x${string}`,
    value: requirements.amount,
    validAfter: '0',
    validBefore: String(now + requirements.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}`,
    ...options.authorization,
  };
  const signature = await signer.signTypedData({
    domain: { name: String(requirements.extra.name), version: String(requirements.extra.version), chainId: Number(requirements.network.split(':')[1]), verifyingContract: requirements.asset as `0x${string}` },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
  });
  return encodePaymentSignatureHeader({
    x402Version: options.x402Version ?? 2,
    accepted: { ...requirements, ...options.accepted } as never,
    payload: { authorization, signature },
  });
}
