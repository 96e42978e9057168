import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { ChainWithMerchants, MerchantChain } from '../../core/merchant-chain.ts';
import { receiveMethodsOf } from './receive-methods.ts';
import { revokeGrantsApprovedWith } from '../../core/oauth/oauth-store.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { CloudApiKeysTable, CloudMerchantsTable } from '../storage/cloud.tables.ts';

type Db = Kysely<CloudTables>;
export type MerchantRow = Selectable<CloudMerchantsTable>;
export type ApiKeyRow = Selectable<CloudApiKeysTable>;

/** Thrown inside the signup transaction so that the merchant row goes back with it. */
class FixedAddressDerived extends Error {}

/**
 * Inserts the account, its first key and the claims on its fixed addresses (each by its chain)
 * together: 'email_taken' and 'address_derived' (a derived invoice holds the fixed address) store nothing.
 */
export async function insertMerchant(
  db: Db,
  chains: readonly ChainWithMerchants[],
  merchant: Insertable<CloudMerchantsTable>,
  key: ApiKeyRow,
): Promise<'inserted' | 'email_taken' | 'address_derived'> {
  try {
    return await db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('cloud_merchants')
        .values(merchant)
        .onConflict((oc) => oc.column('email').doNothing())
        .returning('merchant_id')
        .executeTakeFirst();
      if (!inserted) return 'email_taken';
      // An address registered on several chains of one family (the EVM chains share one claim table) is claimed once.
      const claimers = new Map<string, MerchantChain>();
      for (const method of receiveMethodsOf(merchant)) {
        const chain = chains.find((candidate) => candidate.chain === method.chain)?.merchant;
        if (chain?.claimFixedAddress && method.address && !claimers.has(method.address)) claimers.set(method.address, chain);
      }
      for (const [address, chain] of claimers) if (!(await chain.claimFixedAddress!(trx, address))) throw new FixedAddressDerived();
      await trx.insertInto('cloud_api_keys').values(key).execute();
      return 'inserted';
    });
  } catch (error) {
    if (error instanceof FixedAddressDerived) return 'address_derived';
    throw error;
  }
}

/** The merchant owning an unrevoked full-access key with this hash (the dashboard signs in with these only). */
export async function merchantByKeyHash(db: Db, keyHash: string): Promise<MerchantRow | undefined> {
  const owner = await apiKeyOwner(db, keyHash);
  return owner && owner.scopes === null ? owner.merchant : undefined;
}

/** The merchant owning an unrevoked key with this hash, and the key's scopes (null: full access). */
export async function apiKeyOwner(db: Db, keyHash: string): Promise<{ merchant: MerchantRow; scopes: string[] | null } | undefined> {
  const row = await db
    .selectFrom('cloud_api_keys')
    .innerJoin('cloud_merchants', 'cloud_merchants.merchant_id', 'cloud_api_keys.merchant_id')
    .selectAll('cloud_merchants')
    .select('cloud_api_keys.scopes as key_scopes')
    .where('cloud_api_keys.key_hash', '=', keyHash)
    .where('cloud_api_keys.revoked', '=', 0)
    .executeTakeFirst();
  if (!row) return undefined;
  const { key_scopes, ...merchant } = row;
  return { merchant, scopes: key_scopes === null ? null : key_scopes.split(' ') };
}

export async function findMerchant(db: Db, merchantId: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('cloud_merchants').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function listApiKeys(db: Db, merchantId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('cloud_api_keys').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').execute();
}

export async function insertApiKey(db: Db, key: Insertable<CloudApiKeysTable>): Promise<void> {
  await db.insertInto('cloud_api_keys').values(key).execute();
}

export type RevokeOutcome = 'revoked' | 'not_found' | 'last_key';

/**
 * Revokes the merchant's active key with this prefix and ends the dashboard sessions opened with
 * it and the OAuth grants approved with it (their codes and tokens too). Never the last active key, so an account cannot lock itself out. The merchant's row is
 * locked first (a no-op update: a Postgres row lock; SQLite runs one transaction at a time), so
 * two revocations at once cannot each see the other's key still active and revoke both.
 */
export async function revokeApiKey(db: Db, merchantId: string, prefix: string): Promise<RevokeOutcome> {
  return db.transaction().execute(async (trx) => {
    await trx.updateTable('cloud_merchants').set((eb) => ({ merchant_id: eb.ref('merchant_id') })).where('merchant_id', '=', merchantId).execute();
    const active = await trx.selectFrom('cloud_api_keys').select(['key_hash', 'prefix', 'scopes']).where('merchant_id', '=', merchantId).where('revoked', '=', 0).execute();
    const target = active.find((key) => key.prefix === prefix);
    if (!target) return 'not_found';
    // The last full-access key stays: only it signs in to the dashboard and manages the account.
    if (target.scopes === null && active.filter((key) => key.scopes === null).length === 1) return 'last_key';
    await trx.updateTable('cloud_api_keys').set({ revoked: 1 }).where('key_hash', '=', target.key_hash).execute();
    await trx.deleteFrom('cloud_dashboard_sessions').where('key_hash', '=', target.key_hash).execute();
    await revokeGrantsApprovedWith(trx, target.key_hash);
    return 'revoked';
  });
}

/** `events`: the opt-in events to save with the URL (none: null); undefined leaves the saved ones. */
export async function saveWebhook(db: Db, merchantId: string, url: string, secret: string, events?: readonly string[]): Promise<void> {
  const subscribed = events === undefined ? {} : { webhook_events: events.length ? events.join(' ') : null };
  await db.updateTable('cloud_merchants').set({ webhook_url: url, webhook_secret: secret, ...subscribed }).where('merchant_id', '=', merchantId).execute();
}

/** Saves (or, with null, removes) the merchant's Lightning wallet connection and its network. */
export async function saveLightning(db: Db, merchantId: string, connection: { url: string; network: string } | null): Promise<void> {
  await db
    .updateTable('cloud_merchants')
    .set({ lightning_nwc_url: connection?.url ?? null, lightning_network: connection?.network ?? null, lightning_problem: null, lightning_problem_since: null })
    .where('merchant_id', '=', merchantId)
    .execute();
}

/** Records why the merchant's saved connection `connection` could not be used (null: it works again); a connection replaced meanwhile is left alone. */
export async function saveLightningProblem(db: Db, merchantId: string, connection: string, problem: string | null, now: number): Promise<void> {
  await db
    .updateTable('cloud_merchants')
    // A problem that changes wording keeps the time it began.
    .set(problem === null ? { lightning_problem: null, lightning_problem_since: null } : { lightning_problem: problem.slice(0, 500), lightning_problem_since: sql<number>`coalesce(lightning_problem_since, ${now})` })
    .where('merchant_id', '=', merchantId)
    .where('lightning_nwc_url', '=', connection)
    .execute();
}

/** Every merchant's saved Lightning connection: what the elected instance listens to. */
export async function lightningConnections(db: Db): Promise<Array<{ merchantId: string; connection: string; network: string }>> {
  const rows = await db
    .selectFrom('cloud_merchants')
    .select(['merchant_id', 'lightning_nwc_url', 'lightning_network'])
    .where('lightning_nwc_url', 'is not', null)
    .execute();
  return rows.map((row) => ({ merchantId: row.merchant_id, connection: row.lightning_nwc_url!, network: row.lightning_network ?? 'mainnet' }));
}
