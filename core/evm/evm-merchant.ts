import { HDNodeWallet } from 'ethers';
import type { AssetId } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import type { MerchantChain } from '../merchant-chain.ts';
import { claimFixedAddress } from './address-claims.ts';
import type { EvmChainSpec } from './evm-chain-spec.ts';
import { evmReceiver } from './evm-adapter.ts';
import type { EvmConfig } from './evm-config.ts';
import { KeyError, parseChecksummedAddress, parseEvmAccountXpub, textKeyId } from './keys.ts';

/** The platform's settings of the chain, shared by every merchant, who adds its xpub or address. */
export type EvmMerchantSettings = Omit<EvmConfig, 'xpub' | 'fixedAddress'>;

/** `parse(text)`, a KeyError told as ServiceError `code` naming `field`. */
function parsed<T>(parse: (text: string) => T, text: string, code: 'invalid_xpub' | 'invalid_address', field: string): T {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof KeyError)) throw error;
    throw new ServiceError(code, `${field}: ${error.message}.`);
  }
}

/** Whether a text holds an extended private key an EVM wallet exports. */
function containsEvmPrivateKey(text: string): boolean {
  return [...text.matchAll(/[1-9A-HJ-NP-Za-km-z]{100,112}/g)].some(([candidate]) => {
    try {
      return HDNodeWallet.fromExtendedKey(candidate) instanceof HDNodeWallet;
    } catch {
      return false;
    }
  });
}

/**
 * One EVM chain for a multi-merchant platform: an account xpub (an address per invoice, USDC), a
 * fixed EIP-55 address (amount nonces; USDT too), or both. `enabledAssets` is the chain module's rule.
 */
export function evmMerchant(
  spec: EvmChainSpec,
  enabledAssets: (settings: Pick<EvmConfig, 'tokens' | 'fixedAddress'>) => AssetId[],
): MerchantChain<EvmMerchantSettings> {
  return {
    checkMethod({ xpub, address }, field) {
      if (xpub) parsed(parseEvmAccountXpub, xpub, 'invalid_xpub', field('xpub'));
      return { xpub, address: address ? parsed(parseChecksummedAddress, address, 'invalid_address', field('address')) : null };
    },
    containsPrivateKey: containsEvmPrivateKey,
    keyIdRename(xpub) {
      try {
        return { from: textKeyId(xpub), to: parseEvmAccountXpub(xpub).keyId };
      } catch (error) {
        if (error instanceof KeyError) return null;
        throw error;
      }
    },
    claimFixedAddress,
    // A chain the platform no longer has settings for still links to its mainnet explorer.
    explorerUrl: (settings) => settings?.explorerUrl ?? spec.explorers[spec.mainnetChainId],
    receivers: (shared) => (method) => {
      const key = method.xpub ? parseEvmAccountXpub(method.xpub) : null;
      const tokens = new Map(shared.tokens);
      // USDT is served in fixed-address mode only. A merchant with both an xpub and an address
      // (the sandbox's demo merchant) takes USDC per address and USDT at the fixed one.
      if (!method.address) tokens.delete('usdt');
      const settings: EvmConfig = { ...shared, tokens, xpub: key && { key, keyId: key.keyId }, fixedAddress: method.address };
      return { receiver: evmReceiver({ base: settings }), assets: enabledAssets(settings) };
    },
  };
}
