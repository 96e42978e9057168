import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { insertApiKey, listApiKeys, revokeApiKey, type MerchantRow } from '../merchants/merchant.repository.ts';
import { newApiKey } from './api-keys.ts';

export interface KeyServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
}

/** A merchant's API keys: issued and revoked by the merchant itself. */
export function createKeyService(deps: KeyServiceDeps) {
  const { db, clock } = deps;
  return {
    /**
     * A new key with a label (checked by the caller, see parseKeyLabel), returned this once: only
     * its hash is stored. Keys are named by prefix on the dashboard, so the prefix is unique per merchant.
     */
    async issue(merchant: MerchantRow, label: string, scopes: string | null = null) {
      const taken = new Set((await listApiKeys(db, merchant.merchant_id)).map((row) => row.prefix));
      let key = newApiKey();
      while (taken.has(key.prefix)) key = newApiKey();
      await insertApiKey(db, { key_hash: key.hash, merchant_id: merchant.merchant_id, prefix: key.prefix, label, revoked: 0, created_at: clock.now(), scopes });
      return { key: key.key, prefix: key.prefix, label, scopes: scopes === null ? null : scopes.split(' ') };
    },

    /** Revokes one of the merchant's own active keys by prefix (never the last one); its sessions end with it. */
    revoke: (merchant: MerchantRow, prefix: string) => revokeApiKey(db, merchant.merchant_id, prefix),
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
