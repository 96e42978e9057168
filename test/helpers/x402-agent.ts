import { randomBytes } from 'node:crypto';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
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
