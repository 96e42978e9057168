import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createPublicClient, createWalletClient, defineChain, http, publicActions, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { MAX_RPC_ANSWER_BYTES } from '../net/bounded-body.ts';
import type { Fetch } from '../net/fetch.ts';
import { createFacilitatorClient } from './facilitator-client.ts';
import type { X402Settlement } from './x402-settings.ts';

/** Who submits an x402 payment's `transferWithAuthorization`: the service's own gas key, or a facilitator. */
export interface X402Settler {
  kind: X402Settlement['kind'];
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  /** The built-in settler's gas account: its address, balance and whether it runs low. */
  gasAccount?(): Promise<{ address: string; balanceWei: bigint; low: boolean }>;
}

/** A settler key that cannot pay this many settlements at the node's gas price runs low (/health warns). */
export const LOW_BALANCE_SETTLEMENTS = 20;
/** Gas of one `transferWithAuthorization` with margin (Circle's USDC takes about 80,000). */
export const SETTLEMENT_GAS = 100_000n;

export const networkOf = (chainId: number) => `eip155:${chainId}` as const;

/** A read-only client of one EVM chain's node: receipts, balances, the token's EIP-712 name and version. */
export function chainReader(rpcUrl: string, chainId: number, timeoutMs: number, fetch: Fetch): PublicClient {
  return createPublicClient({ chain: chainDefinition(rpcUrl, chainId), transport: boundedTransport(rpcUrl, timeoutMs, fetch) });
}

/**
 * viem's HTTP transport through the injected fetch. viem reads bodies itself, counting bytes as they
 * come and stopping at `maxResponseBodySize`, and its timeout covers the body: the caps of every
 * JSON-RPC source, set to the same figure.
 */
function boundedTransport(rpcUrl: string, timeoutMs: number, fetch: Fetch) {
  return http(rpcUrl, { timeout: timeoutMs, fetchFn: fetch, maxResponseBodySize: MAX_RPC_ANSWER_BYTES });
}

function chainDefinition(rpcUrl: string, chainId: number) {
  return defineChain({ id: chainId, name: `eip155:${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
}

/**
 * The service settles itself: x402's own facilitator (`exact` scheme, EIP-3009) with a key that
 * pays the gas. EIP-3009 binds `to` and `value` into the payer's signature, so this key can submit
 * the payer's transfer and nothing else: it never holds or redirects the tokens.
 */
function builtInSettler(key: `0x${string}`, rpcUrl: string, chainId: number, timeoutMs: number, fetch: Fetch): X402Settler {
  const account = privateKeyToAccount(key);
  // Receipts are polled every 250 ms (viem's default is 4 s): the payer's 200 waits on this.
  const client = createWalletClient({ account, chain: chainDefinition(rpcUrl, chainId), transport: boundedTransport(rpcUrl, timeoutMs, fetch), pollingInterval: 250 }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({ ...(client as never as Parameters<typeof toFacilitatorEvmSigner>[0]), address: account.address }, { confirmationTimeoutMs: timeoutMs });
  // The methods are the client's own (bound): spreading a viem client keeps them working.
  // simulateInSettle: the transfer is simulated again just before it is sent, so one that would now
  // revert (the payer moved the funds after the checks) is skipped and costs no gas.
  const facilitator = new x402Facilitator().register(networkOf(chainId), new ExactEvmScheme(signer, { simulateInSettle: true }));
  return {
    kind: 'settler',
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    async gasAccount() {
      const [balanceWei, gasPrice] = await Promise.all([client.getBalance({ address: account.address }), client.getGasPrice()]);
      return { address: account.address, balanceWei, low: balanceWei < BigInt(LOW_BALANCE_SETTLEMENTS) * SETTLEMENT_GAS * gasPrice };
    },
  };
}

/** Any x402 v2 facilitator over HTTP (`POST /verify`, `POST /settle`), its answers read within their caps. */
export function facilitatorSettler(url: string, timeoutMs: number, fetch: Fetch): X402Settler {
  const client = createFacilitatorClient(url, timeoutMs, fetch);
  return { kind: 'facilitator', verify: (payload, requirements) => client.verify(payload, requirements), settle: (payload, requirements) => client.settle(payload, requirements) };
}

export function settlerFor(settlement: X402Settlement, rpcUrl: string, chainId: number, timeoutMs: number, fetch: Fetch): X402Settler {
  return settlement.kind === 'facilitator' ? facilitatorSettler(settlement.url, timeoutMs, fetch) : builtInSettler(settlement.key, rpcUrl, chainId, timeoutMs, fetch);
}
