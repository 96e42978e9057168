import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { startListener, type RunningListener } from '../../listener/app.ts';
import { loadConfig } from '../../listener/config.ts';
import type { X402PaymentRequired } from '../../shared/index.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, type EvmTestChain } from './evm-chain.ts';
import { decodePaymentRequiredHeader, type Requirements } from './x402-agent.ts';
import { postJson } from './listener.ts';

/**
 * A listener's settings for Base on the test chain's one local node (declared trusted, as an
 * operator declares its own): the account key and fixed address, USDC; `overrides` add or replace.
 */
export function x402ListenerSettings(chain: EvmTestChain, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    DATABASE_URL: chain.databaseUrl,
    SERVICE_RATE_LIMIT: 'off',
    MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
    MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
    MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address}`,
    BASE_RPC_URL: chain.anvil.url,
    // One local node, declared trusted as an operator declares its own.
    BASE_MIN_SOURCES: '1',
    BASE_CHAIN_ID: String(chain.anvil.chainId),
    BASE_FINALITY: 'count',
    ...overrides,
  };
}

/** A listener started with `x402ListenerSettings(chain, overrides)`. */
export function startX402Listener(chain: EvmTestChain, overrides: Record<string, string>, options: Parameters<typeof startListener>[1]): Promise<RunningListener> {
  return startListener(loadConfig(x402ListenerSettings(chain, overrides), defaultChains), options);
}

/** A Base invoice created on `listener` (201 asserted). */
export async function newInvoice<Invoice = { invoice_id: string; receive_address: string; x402_url: string }>(listener: RunningListener, body: Record<string, unknown>): Promise<Invoice> {
  const created = await postJson(`${listener.url}/invoice`, { chain: 'base', ...body });
  assert.equal(created.status, 201, created.text);
  return created.json as Invoice;
}

/** The first payment requirements of an unpaid invoice's x402 URL (402 asserted). */
export async function requirementsOf(url: string): Promise<Requirements> {
  const answer = await fetch(url);
  assert.equal(answer.status, 402, await answer.clone().text());
  return (decodePaymentRequiredHeader(answer.headers.get('PAYMENT-REQUIRED')!) as X402PaymentRequired).accepts[0] as Requirements;
}

export type X402Envelope = { error: { code: string; reason?: string; message: string } };

/** The x402 URL's answer to a PAYMENT-SIGNATURE `header`. */
export async function paying(url: string, header: string) {
  const answer = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } });
  return { status: answer.status, headers: answer.headers, json: (await answer.json()) as X402Envelope & Record<string, unknown> };
}
