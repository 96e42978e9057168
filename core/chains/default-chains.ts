import { bitcoin } from '../btc/bitcoin.ts';
import { base } from '../evm/chains/base.ts';
import { ethereum } from '../evm/chains/ethereum.ts';
import { polygon } from '../evm/chains/polygon.ts';
import { arbitrum } from '../evm/chains/arbitrum.ts';
import type { ChainDefinition } from '../chain-definition.ts';

/**
 * The chains the service's entry points (bin/, the sandbox) start with, in the contract's order:
 * the one place that names them. Everything else is given this list (or another) and reads no
 * chain by name.
 */
export const defaultChains: readonly ChainDefinition[] = [bitcoin, base, ethereum, polygon, arbitrum];
