import type { Env } from '../edge/settings.ts';
import { startLightningWallet, type LightningWalletSimulator } from './lightning-wallet.ts';
import { startNostrRelay, type NostrRelay } from './nostr-relay.ts';

/** The sandbox's Lightning side: a local Nostr relay and a simulated NIP-47 wallet on regtest behind it. */
export interface SandboxLightning {
  relay: NostrRelay;
  wallet: LightningWalletSimulator;
  /** MERCHANT_NWC_URL: a fresh connection to the simulated wallet, so Bitcoin invoices take Lightning next to on-chain. */
  env: Env;
  /** `lightning/pay` for `service pay --lightning`: settles one of the wallet's invoices as a payer would. */
  control: Record<string, (input: Record<string, unknown>) => Promise<unknown>>;
  close(): Promise<void>;
}

/**
 * Starts the relay on a free loopback port (a ws:// relay the listener accepts outside production)
 * and the simulated wallet on it. Both live in memory, so each run starts with no invoices, as the
 * sandbox's chain does.
 */
export async function startSandboxLightning(): Promise<SandboxLightning> {
  const relay = await startNostrRelay();
  let wallet: LightningWalletSimulator;
  try {
    wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
  } catch (error) {
    await relay.close();
    throw error;
  }
  return {
    relay,
    wallet,
    env: { MERCHANT_NWC_URL: wallet.connectionUri() },
    control: {
      'lightning/pay': async (input) => {
        const amountMsat = input.amount_msat === undefined ? undefined : Number(input.amount_msat);
        const settled = await wallet.settle(String(input.invoice), { amountMsat });
        return { payment_hash: settled.paymentHash, preimage: settled.preimage, amount_msat: settled.amountMsat };
      },
    },
    async close() {
      await wallet.close();
      await relay.close();
    },
  };
}
