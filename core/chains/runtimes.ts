import type { ConfiguredChain } from '../chain-runtime.ts';
import type { EvmConfig } from '../base/base-config.ts';
import { evmRuntimes } from '../base/evm-runtime.ts';
import { btcRuntime, type BtcListenerSettings } from '../btc/btc-runtime.ts';

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
