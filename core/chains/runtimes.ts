import type { ConfiguredChain, PlatformChain } from '../chain-runtime.ts';
import type { EvmConfig } from '../evm/evm-config.ts';
import { evmPlatformRuntimes, evmRuntimes, type EvmPlatformSettings } from '../evm/evm-runtime.ts';
import { btcPlatformRuntime, btcRuntime, type BtcListenerSettings, type BtcPlatformSettings } from '../btc/btc-runtime.ts';

/**
 * The chains a listener config enables, each with its runtime and settings, in the registry's
 * chain order (Bitcoin, then the EVM chains): the listener builds its receivers, watchers, /health
 * and explorers from this list instead of naming chains.
 */
export function listenerChains(config: { btc: BtcListenerSettings | null; evm: readonly EvmConfig[] }): ConfiguredChain[] {
  return [
    ...(config.btc ? [{ runtime: btcRuntime, settings: config.btc }] : []),
    ...config.evm.map((settings) => ({ runtime: evmRuntimes.get(settings.chain)!, settings })),
  ];
}

/** The chains a multi-merchant platform (Cloud) watches: Bitcoin always, then each EVM chain with settings. */
export function platformChains(config: { btc: BtcPlatformSettings; evm: readonly EvmPlatformSettings[] }): PlatformChain[] {
  return [
    { runtime: btcPlatformRuntime, settings: config.btc },
    ...config.evm.map((settings) => ({ runtime: evmPlatformRuntimes.get(settings.chain)!, settings })),
  ];
}
