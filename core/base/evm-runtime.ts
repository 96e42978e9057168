import type { EvmChainName } from '../../shared/index.ts';
import type { ChainRuntime } from '../chain-runtime.ts';
import { watchObserver } from '../metrics.ts';
import { baseReceiver } from './base-adapter.ts';
import type { EvmConfig } from './base-config.ts';
import { baseChainStatus, baseHealth } from './base-health.ts';
import { merchantBaseScope } from './base-transfer.repository.ts';
import { evmChainSpecs, type EvmChainSpec } from './evm-chains.ts';
import { createRpcSource } from './rpc.ts';
import { createBaseWatcher } from './watcher.ts';

/** The chain whose watcher /health also reports under its own `base` field, from before there were other EVM chains. */
const firstEvmChain: EvmChainName = 'base';

/** One EVM chain as the listener runs it for its merchant: the same code for every EVM chain. */
export function evmRuntime(spec: EvmChainSpec): ChainRuntime<EvmConfig> {
  return {
    chain: spec.chain,
    explorerUrl: (settings) => settings.explorerUrl,
    network: (settings) => settings.chainId,
    receiver: async (settings, { tuning }) => baseReceiver({ base: settings, nonceDigits: tuning.baseOptions?.nonceDigits, quarantineMs: tuning.baseOptions?.quarantineMs }),
    watch(settings, { db, feed, clock, logger, metrics, budgets, fetch, merchantId, tuning }) {
      const watcher = createBaseWatcher({
        observer: watchObserver(metrics, spec.chain),
        db,
        feed,
        clock,
        logger: logger.child({ chain: spec.chain }),
        scope: merchantBaseScope(merchantId, spec.chain),
        base: settings,
        sources: settings.rpcUrls.map((url) =>
          createRpcSource(url, {
            fetch: budgets.fetchFor(fetch, spec.chain, url, false, spec.sourceBudget),
            sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
            logger,
          }),
        ),
        pollIntervalMs: tuning.baseOptions?.pollIntervalMs,
      });
      return {
        chain: spec.chain,
        start: () => watcher.start(),
        stop: () => watcher.stop(),
        async syncOnce() {
          await watcher.tick();
        },
        problem: () => watcher.problem(),
        progress: () => watcher.status().progress,
        health() {
          const status = watcher.status();
          return {
            headline: baseChainStatus(status),
            sections: {
              ...(spec.chain === firstEvmChain && { base: baseHealth(status) }),
              evm_chains: { [spec.chain]: baseHealth(status, spec.chain) },
            },
          };
        },
      };
    },
  };
}

export const evmRuntimes: ReadonlyMap<EvmChainName, ChainRuntime<EvmConfig>> = new Map(evmChainSpecs.map((spec) => [spec.chain, evmRuntime(spec)]));
