import type { Kysely } from 'kysely';
import { privateKeyToAccount } from 'viem/accounts';
import type { ConfiguredChain } from '../chain-definition.ts';
import type { CoreTables } from '../schema.ts';
import { X402_SETTLER_KEY, type X402Settings } from './x402-settings.ts';

/**
 * How many of the merchant's next account-key addresses the listener checks the settler key
 * against at start: an invoice soon handed one of them would pay into the settler's account.
 */
const SETTLER_KEY_LOOKAHEAD = 20;

/** The settler key's address, when a chain settles with it. */
function settlerAddressOf(settings: X402Settings): string | null {
  const settler = Object.values(settings.settlement).find((settlement) => settlement.kind === 'settler');
  return settler?.kind === 'settler' ? privateKeyToAccount(settler.key).address : null;
}

/**
 * Why start must refuse X402_SETTLER_KEY, or null. The settler's key pays gas and must hold no
 * one's money: it must not be the key of any receive address, a fixed one or a derived invoice's
 * (every edition: the chains' claims), nor one of the next addresses of the listener's account key
 * (`listener`: its own settings). The key itself is never echoed.
 */
export async function settlerKeyProblem(db: Kysely<CoreTables>, settings: X402Settings, chains: readonly ConfiguredChain[], edition: 'listener' | 'platform'): Promise<string | null> {
  const address = settlerAddressOf(settings);
  if (!address) return null;
  const refusal = (what: string) =>
    `${X402_SETTLER_KEY} is the key of ${address}, ${what}: the settler would hold the merchant's money. Refusing to start: give ${X402_SETTLER_KEY} a key of its own that only pays gas`;
  for (const { definition, settings: chainSettings } of chains) {
    if (await definition.holdsReceiveAddress?.(db, address)) return refusal(`a receive address on ${definition.chain} (a fixed address or an invoice's)`);
    if (edition !== 'listener') continue;
    const upcoming = (await definition.listener.upcomingReceiveAddresses?.(db, chainSettings, SETTLER_KEY_LOOKAHEAD)) ?? [];
    if (upcoming.includes(address)) return refusal(`one of the next ${SETTLER_KEY_LOOKAHEAD} invoice addresses of the merchant's ${definition.chain} account key`);
  }
  return null;
}
