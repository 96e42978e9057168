import { defineChain, type ChainDefinition, type ChainEnv } from '../chain-definition.ts';
import type { Dialect } from '../db/migrate.ts';
import type { Migration } from 'kysely';
import { evmAddressClaimsMigration } from './address-claims.migration.ts';
import { evmPrefixOf, type EvmChainSpec } from './evm-chain-spec.ts';
import { evmChainColumnMigration } from './evm-chain-column.migration.ts';
import { EVM_ADDRESS, EVM_TOKENS, EVM_XPUB, evmSettingNamesOf, parseEvmConfig, type EvmConfig } from './evm-config.ts';
import { evmModule } from './evm-module.ts';
import { evmPlatformRuntime, evmRuntime, type EvmPlatformSettings } from './evm-runtime.ts';
import { baseStablecoinsDown, baseStablecoinsUp } from './evm.migration.ts';
import { nonceLeasesByAddressMigration } from './nonce-leases.migration.ts';

/** An EVM chain's definition, with the facts it was made from. */
export interface EvmChainDefinition extends ChainDefinition<EvmConfig, EvmPlatformSettings> {
  spec: EvmChainSpec;
}

/** Whether a chain of a list is an EVM chain made by defineEvmChain (its facts at hand). */
export const isEvmChainDefinition = (chain: ChainDefinition): chain is EvmChainDefinition => chain.facts.family === 'evm' && 'spec' in chain;

/** The facts of the EVM chains of a list, in its order. */
export const evmSpecsIn = (chains: readonly ChainDefinition[]): EvmChainSpec[] => chains.filter(isEvmChainDefinition).map((chain) => chain.spec);

/** The family's tables, shared by every EVM chain (rows carry their chain), under the names databases recorded. */
function evmMigrations(_dialect: Dialect): Record<string, Migration> {
  return {
    '0003_base_stablecoins': { up: baseStablecoinsUp, down: baseStablecoinsDown },
    '0010_nonce_leases_by_address': nonceLeasesByAddressMigration,
    '0011_base_address_claims': evmAddressClaimsMigration,
    '0016_evm_chain_column': evmChainColumnMigration,
  };
}

/** Stands in for a merchant's own address while the platform's side of a chain is read. */
const PLACEHOLDER_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The platform's side of an EVM chain: on once its RPC URL is set; a merchant's key or address is its own. */
function parseEvmPlatformSettings(spec: EvmChainSpec, env: ChainEnv, problems: string[]): EvmPlatformSettings | null {
  const names = evmSettingNamesOf(spec);
  if (!env[names.rpcUrl]?.trim()) return null;
  const parsed = parseEvmConfig(spec, { ...env, [EVM_XPUB]: undefined, [EVM_ADDRESS]: undefined, [names.xpub]: undefined, [names.address]: PLACEHOLDER_ADDRESS }, problems);
  if (!parsed) return null;
  const { xpub: _xpub, fixedAddress: _fixed, ...shared } = parsed;
  return shared;
}

/** The shared MERCHANT_EVM_XPUB / MERCHANT_EVM_ADDRESS enables the EVM chains that have an RPC URL: one that enables none is a mistake. */
function evmSharedKeyCheck(env: ChainEnv, family: readonly ChainDefinition[]): string[] {
  const rpcUrls = family.map((chain) => `${evmPrefixOf(chain.chain as EvmChainSpec['chain'])}_RPC_URL`);
  const sharedKey = [EVM_XPUB, EVM_ADDRESS].find((name) => env[name]?.trim());
  if (!sharedKey || rpcUrls.some((name) => env[name]?.trim())) return [];
  return [`${sharedKey} is set but no EVM chain has an RPC URL (${rpcUrls.join(', ')})`];
}

/** One EVM chain from its facts: the same code for every EVM chain (Base, Ethereum, …), its differences in `facts`. */
export function defineEvmChain(facts: Omit<EvmChainSpec, 'envPrefix'>): EvmChainDefinition {
  const spec: EvmChainSpec = { ...facts, envPrefix: evmPrefixOf(facts.chain) };
  const names = Object.values(evmSettingNamesOf(spec));
  return {
    ...defineChain<EvmConfig, EvmPlatformSettings>({
      ...evmModule(spec),
      migrations: evmMigrations,
      listener: { settingNames: [EVM_XPUB, EVM_ADDRESS, EVM_TOKENS, ...names], shape: {}, parse: (env, problems) => parseEvmConfig(spec, env, problems), ...evmRuntime(spec) },
      platform: {
        settingNames: names.filter((name) => !name.startsWith('MERCHANT_')),
        shape: {},
        parse: (env, problems) => parseEvmPlatformSettings(spec, env, problems),
        ...evmPlatformRuntime(spec),
      },
      familyCheck: evmSharedKeyCheck,
    }),
    spec,
  };
}
