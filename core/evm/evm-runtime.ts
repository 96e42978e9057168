import type { EvmChainName } from '../../shared/index.ts';
import { tuningOf, type ChainRuntime, type PlatformChainRuntime } from '../chain-runtime.ts';
import { adoptKeyIdentity, peekNextChildIndex } from '../invoices/invoice.repository.ts';
import { watchObserver } from '../metrics.ts';
import { claimOwnFixedAddress } from './address-claims.ts';
import { evmReceiver } from './evm-adapter.ts';
import type { EvmConfig } from './evm-config.ts';
import { EVM_ADDRESS_COUNTER } from './evm-invoices.ts';
import { evmChainHealth, evmChainStatus, evmHealth } from './evm-health.ts';
import { chainEvmScope, merchantEvmScope } from './evm-transfer.repository.ts';
import type { EvmChainSpec } from './evm-chain-spec.ts';
import { chainFacts } from '../../shared/index.ts';
import { createRpcSource } from './rpc.ts';
import { createSharedRpcSource } from './shared-rpc-source.ts';
import { createEvmWatcher } from './watcher.ts';
import { createHeadSubscription } from './new-heads.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';

/**
 * The chain from before there were other EVM chains: /health also reports its watcher under its own
 * `base` field, and only its invoices were stored under a key's older id (before migration 0009).
 */
const firstEvmChain: EvmChainName = 'base';

/** When the watcher reads the chain: once a block is due, or at once when the chain's WebSocket announces one. */
function pace(settings: Pick<EvmConfig, 'chain' | 'wsUrl' | 'blockTimeMs'>, clock: Clock, logger: Logger) {
  return {
    blockTimeMs: settings.blockTimeMs,
    heads: settings.wsUrl ? createHeadSubscription({ url: settings.wsUrl, clock, logger: logger.child({ chain: settings.chain }) }) : null,
  };
}

/** One EVM chain as the listener runs it for its merchant: the same code for every EVM chain. */
export function evmRuntime(spec: EvmChainSpec): ChainRuntime<EvmConfig> {
  return {
    async prepare(db, settings) {
      if (spec.chain === firstEvmChain && settings.xpub?.legacyKeyId) await adoptKeyIdentity(db, EVM_ADDRESS_COUNTER, settings.xpub.legacyKeyId, settings.xpub.keyId);
      // Idempotent: the chains that share MERCHANT_EVM_ADDRESS share its claim.
      return settings.fixedAddress ? claimOwnFixedAddress(db, settings.fixedAddress) : null;
    },
    explorerUrl: (settings) => settings.explorerUrl,
    network: (settings) => settings.chainId,
    async upcomingReceiveAddresses(db, settings, count) {
      if (!settings.xpub) return [];
      const next = await peekNextChildIndex(db, EVM_ADDRESS_COUNTER, settings.xpub.keyId);
      return Array.from({ length: count }, (_, i) => settings.xpub!.key.address(next + i));
    },
    async receiver(settings, { tuning }) {
      const { nonceDigits, quarantineMs } = tuningOf(tuning, spec.chain, chainFacts[spec.chain]);
      return evmReceiver({ base: settings, nonceDigits, quarantineMs });
    },
    watch(settings, { db, feed, clock, logger, metrics, budgets, fetch, merchantId, tuning }) {
      const watcher = createEvmWatcher({
        observer: watchObserver(metrics, spec.chain),
        db,
        feed,
        clock,
        logger: logger.child({ chain: spec.chain }),
        scope: merchantEvmScope(merchantId, spec.chain),
        base: settings,
        sources: settings.rpcUrls.map((url) =>
          createRpcSource(url, {
            fetch: budgets.fetchFor(fetch, spec.chain, url, false, spec.sourceBudget),
            sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
            logger,
            chain: spec.chain,
          }),
        ),
        pollIntervalMs: tuningOf(tuning, spec.chain, chainFacts[spec.chain]).pollIntervalMs,
        ...pace(settings, clock, logger),
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
            headline: evmChainStatus(status),
            sections: {
              ...(spec.chain === firstEvmChain && { base: evmHealth(status, spec.chain) }),
              evm_chains: { [spec.chain]: evmHealth(status, spec.chain) },
            },
            entry: { chain: spec.chain, health: evmChainHealth(status, spec.chain) },
          };
        },
      };
    },
  };
}

/** An EVM chain's platform settings: shared by every merchant, who adds its own xpub or address. */
export type EvmPlatformSettings = Omit<EvmConfig, 'xpub' | 'fixedAddress'>;

/** One EVM chain on a multi-merchant platform: one watcher for every merchant's invoices and fixed addresses on it. */
export function evmPlatformRuntime(spec: EvmChainSpec): PlatformChainRuntime<EvmPlatformSettings> {
  return {
    watches: (settings, { db, feed, clock, logger, metrics, budgets, fetch, fixedAddresses, tuning }) => [
      {
        key: `${spec.chain}:${settings.chainId}`,
        needed: null,
        start() {
          const watcher = createEvmWatcher({
            observer: metrics && watchObserver(metrics, spec.chain),
            db,
            feed,
            clock,
            logger: logger.child({ chain: spec.chain }),
            scope: chainEvmScope(spec.chain, settings.chainId),
            base: { ...settings, fixedAddress: null },
            fixedAddresses: () => fixedAddresses(spec.chain),
            sources: settings.rpcUrls.map((url) =>
              createSharedRpcSource(
                createRpcSource(url, { fetch: budgets.fetchFor(fetch, spec.chain, url, false, spec.sourceBudget), sleep: (ms) => new Promise((r) => setTimeout(r, ms)), logger, chain: spec.chain }),
                { clock },
              ),
            ),
            pollIntervalMs: tuningOf(tuning, spec.chain, chainFacts[spec.chain]).pollIntervalMs,
            ...pace(settings, clock, logger),
          });
          watcher.start();
          return watcher;
        },
      },
    ],
  };
}
