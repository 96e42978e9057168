import { chainNames, isEvmChain, type ChainName } from '../../shared/index.ts';
import { ServiceError } from '../../core/errors.ts';
import type { ChainWithMerchants } from '../../core/merchant-chain.ts';
import type { Kysely } from 'kysely';
import type { MerchantAddress } from '../../core/chain-runtime.ts';
import type { CloudMerchantsTable, CloudTables } from '../storage/cloud.tables.ts';

/** How a merchant receives on one chain, as stored: an xpub, a fixed address (EVM chains), or both. */
export interface StoredReceiveMethod {
  chain: ChainName;
  xpub: string | null;
  address: string | null;
}

/** The chain the older signup fields (btc_xpub, base_xpub, base_address) speak for, by family. */
export const legacyChains = { bitcoin: chainNames[0], evm: chainNames.find(isEvmChain)! };

type MerchantMethods = { btc_xpub?: string | null; base_xpub?: string | null; base_address?: string | null; receive_methods?: string | null };

/** Every merchant's fixed receive addresses by chain, in one query for all chains (the platform's EVM watchers). */
export async function fixedAddressesByChain(db: Kysely<CloudTables>): Promise<Map<string, MerchantAddress[]>> {
  const rows = await db.selectFrom('cloud_merchants').select(['merchant_id', 'btc_xpub', 'base_xpub', 'base_address', 'receive_methods']).execute();
  const byChain = new Map<string, MerchantAddress[]>();
  for (const row of rows) {
    for (const method of receiveMethodsOf(row)) {
      if (!method.address) continue;
      const addresses = byChain.get(method.chain);
      // Appended in place: copying the list for each merchant grew with the square of the merchants.
      if (addresses) addresses.push({ merchantId: row.merchant_id, address: method.address });
      else byChain.set(method.chain, [{ merchantId: row.merchant_id, address: method.address }]);
    }
  }
  return byChain;
}

/**
 * The merchant's receive methods, one per chain. Accounts from before per-chain methods (and the
 * sandbox's demo merchant) have only the older columns, which say the same for two chains.
 */
export function receiveMethodsOf(row: MerchantMethods): StoredReceiveMethod[] {
  if (row.receive_methods) return JSON.parse(row.receive_methods) as StoredReceiveMethod[];
  const methods: StoredReceiveMethod[] = [];
  if (row.btc_xpub) methods.push({ chain: legacyChains.bitcoin, xpub: row.btc_xpub, address: null });
  if (row.base_xpub || row.base_address) methods.push({ chain: legacyChains.evm, xpub: row.base_xpub ?? null, address: row.base_address ?? null });
  return methods;
}

/** The older columns of `methods`, still written so readers of them (and older releases) see the same account. */
export function legacyColumnsOf(methods: StoredReceiveMethod[]): Pick<CloudMerchantsTable, 'btc_xpub' | 'base_xpub' | 'base_address'> {
  const bitcoin = methods.find((m) => m.chain === legacyChains.bitcoin);
  const evm = methods.find((m) => m.chain === legacyChains.evm);
  return { btc_xpub: bitcoin?.xpub ?? null, base_xpub: evm?.xpub ?? null, base_address: evm?.address ?? null };
}

const text = (value: unknown, field: string): string | null => {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new ServiceError('bad_body', `${field} must be a string.`);
  return value.trim();
};

/** The chain named `chain` among those the platform serves; `unsupported_chain` naming `field` when it is none of them. */
export function servedChain<Chain extends ChainWithMerchants>(chains: readonly Chain[], chain: unknown, field: string): Chain {
  const served = chains.find((candidate) => candidate.chain === chain);
  if (!served) throw new ServiceError('unsupported_chain', `${field} must be one of ${chains.map((candidate) => candidate.chain).join(', ')}.`);
  return served;
}

/** One receive method of a signup, checked by its chain: the xpub parses for the chain, an address is one the chain takes. */
function checkedMethod(chain: ChainWithMerchants, xpub: string | null, address: string | null, field: (name: 'xpub' | 'address') => string): StoredReceiveMethod {
  return { chain: chain.chain, ...chain.merchant.checkMethod({ xpub, address }, field) };
}

/**
 * A signup's receive methods: `receive_methods` (one entry per chain), and the older fields for
 * the chains no entry names. Of the older fields base_xpub wins: a base_address sent with it is
 * ignored, as before.
 */
export function signupReceiveMethods(fields: Record<string, unknown>, chains: readonly ChainWithMerchants[], options: { lightning: boolean } = { lightning: false }): StoredReceiveMethod[] {
  const methods: StoredReceiveMethod[] = [];
  const listed = fields.receive_methods;
  if (listed !== undefined && listed !== null) {
    if (!Array.isArray(listed)) throw new ServiceError('bad_body', 'receive_methods must be an array.');
    listed.forEach((entry: unknown, index) => {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ServiceError('bad_body', `receive_methods[${index}] must be an object.`);
      const { chain, xpub, address } = entry as Record<string, unknown>;
      const served = servedChain(chains, chain, `receive_methods[${index}].chain`);
      if (methods.some((m) => m.chain === chain)) throw new ServiceError('bad_body', `receive_methods names ${chain} twice.`);
      const field = (name: string) => `receive_methods[${index}].${name}`;
      const xpubText = text(xpub, field('xpub'));
      const addressText = text(address, field('address'));
      if (!xpubText && !addressText) throw new ServiceError('no_receive_method', `${field('xpub')} or ${field('address')} is required.`);
      methods.push(checkedMethod(served, xpubText, addressText, field));
    });
  }
  const btcXpub = text(fields.btc_xpub, 'btc_xpub');
  if (btcXpub && !methods.some((m) => m.chain === legacyChains.bitcoin)) methods.push(checkedMethod(servedChain(chains, legacyChains.bitcoin, 'btc_xpub'), btcXpub, null, () => 'btc_xpub'));
  const baseXpub = text(fields.base_xpub, 'base_xpub');
  const baseAddress = baseXpub ? null : text(fields.base_address, 'base_address');
  if ((baseXpub || baseAddress) && !methods.some((m) => m.chain === legacyChains.evm)) {
    methods.push(checkedMethod(servedChain(chains, legacyChains.evm, 'base_xpub'), baseXpub, baseAddress, (name) => (name === 'xpub' ? 'base_xpub' : 'base_address')));
  }
  // A Lightning connection alone is a way to receive: Lightning-only Bitcoin invoices.
  if (methods.length === 0 && !options.lightning) throw new ServiceError('no_receive_method', 'Send at least one receive method: receive_methods, btc_xpub, base_xpub or base_address, or lightning_nwc_url.');
  return methods;
}
