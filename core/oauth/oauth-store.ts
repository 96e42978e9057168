import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { live, oauthAdapter, type OAuthAdapter } from './oauth-adapter.ts';
import type { OAuthTables } from './oauth.tables.ts';

/** A registered client with no live grant is deleted once it is this old (a day). */
export const UNUSED_CLIENT_TTL_MS = 24 * 3600_000;

/** A grant as the Connected apps page lists it. */
export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string | null;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
}

type Db = Kysely<OAuthTables>;

/**
 * oidc-provider's storage over the service's database (SQLite or Postgres), shared by every
 * instance on it: tokens, codes, sessions and grants keyed by the SHA-256 of their id.
 */
export function createOAuthStore(db: Db, clock: Clock) {
  return {
    /** oidc-provider's `adapter` setting: one adapter per model name. */
    adapterFor: (model: string): OAuthAdapter => oauthAdapter(db, clock, model),
    /**
     * Deletes the rows past their expiry, and the registered clients a day old or more that hold
     * no live grant (registered and never approved, or whose grants all ended); returns how many.
     */
    async sweep(): Promise<number> {
      const now = clock.now();
      const expired = await db.deleteFrom('oauth_records').where('expires_at', '<=', now).executeTakeFirst();
      const unused = await db
        .deleteFrom('oauth_records')
        .where('model', '=', 'Client')
        .where('created_at', '<=', now - UNUSED_CLIENT_TTL_MS)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('oauth_records as grants').select('grants.grant_id').where('grants.model', '=', 'Grant').whereRef('grants.client_id', '=', 'oauth_records.client_id'))),
        )
        .executeTakeFirst();
      return Number(expired.numDeletedRows) + Number(unused.numDeletedRows);
    },
    /** A secret shared by every instance on this database: the first to ask creates it. */
    async sharedSecret(name: string, create: () => string = () => randomBytes(32).toString('base64url')): Promise<string> {
      await db.insertInto('oauth_secrets').values({ name, value: create() }).onConflict((oc) => oc.column('name').doNothing()).execute();
      const found = await db.selectFrom('oauth_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return found.value;
    },
    /**
     * A non-reversible id of a secret key, for its grants to record: its HMAC under a secret of
     * this database, so a table of common keys computed elsewhere does not apply.
     */
    async keyFingerprint(key: string): Promise<string> {
      return createHmac('sha256', await this.sharedSecret('key-fingerprint')).update(key).digest('base64url');
    },
    /** The live grants one account approved, newest first. */
    async connectedApps(accountId: string): Promise<ConnectedApp[]> {
      const rows = await db
        .selectFrom('oauth_records')
        .select(['grant_id', 'client_id', 'client_name', 'payload', 'created_at', 'last_used_at'])
        .where('model', '=', 'Grant')
        .where('account_id', '=', accountId)
        .where(live(clock.now()))
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map((r) => {
        const payload = JSON.parse(r.payload) as { resources?: Record<string, string> };
        const scopes = [...new Set(Object.values(payload.resources ?? {}).flatMap((s) => s.split(' ')))].filter(Boolean).sort();
        return { grantId: r.grant_id!, clientId: r.client_id ?? '', clientName: r.client_name, scopes, createdAt: r.created_at, lastUsedAt: r.last_used_at };
      });
    },
    /** Removes a grant of this account with every code and token issued under it; false when it is not theirs. */
    async revokeGrant(accountId: string, grantId: string): Promise<boolean> {
      const owned = await db.selectFrom('oauth_records').select('grant_id').where('model', '=', 'Grant').where('grant_id', '=', grantId).where('account_id', '=', accountId).executeTakeFirst();
      if (!owned) return false;
      await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
      return true;
    },
    /** Notes on a grant the key that approved it and the client's name (for the Connected apps page). */
    async noteGrant(grantId: string, note: { keyId: string; clientName: string | null }): Promise<void> {
      await db.updateTable('oauth_records').set({ key_id: note.keyId, client_name: note.clientName }).where('model', '=', 'Grant').where('grant_id', '=', grantId).execute();
    },
    /** The id of the key that approved a live grant; null when the grant is gone or predates the record. */
    async keyOfGrant(grantId: string): Promise<string | null> {
      const found = await db.selectFrom('oauth_records').select('key_id').where('model', '=', 'Grant').where('grant_id', '=', grantId).where(live(clock.now())).executeTakeFirst();
      return found?.key_id ?? null;
    },
    /** Ends every grant not approved with this key (the listener's key changed), with their codes and tokens. */
    async revokeGrantsNotApprovedWith(keyId: string): Promise<number> {
      return revokeGrants(db, (eb) => eb.or([eb('key_id', 'is', null), eb('key_id', '!=', keyId)]));
    },
    async touchGrant(grantId: string): Promise<void> {
      await db.updateTable('oauth_records').set({ last_used_at: clock.now() }).where('model', '=', 'Grant').where('grant_id', '=', grantId).execute();
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;

/** Removes the grants that match `which`, and every code, token and session issued under them; returns how many grants. */
async function revokeGrants(db: Pick<Db, 'selectFrom' | 'deleteFrom'>, which: (eb: any) => any): Promise<number> {
  const grants = await db.selectFrom('oauth_records').select('grant_id').where('model', '=', 'Grant').where(which).execute();
  const ids = grants.map((g) => g.grant_id!).filter(Boolean);
  for (let at = 0; at < ids.length; at += 500) await db.deleteFrom('oauth_records').where('grant_id', 'in', ids.slice(at, at + 500)).execute();
  return ids.length;
}

/**
 * Ends the grants approved with a key, and their codes and tokens: called when the key is revoked,
 * inside the transaction that revokes it (`db` may be that transaction).
 */
export function revokeGrantsApprovedWith(db: Pick<Db, 'selectFrom' | 'deleteFrom'>, keyId: string): Promise<number> {
  return revokeGrants(db, (eb) => eb('key_id', '=', keyId));
}
