import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { OAuthTables } from './oauth.tables.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** What oidc-provider stores per model (its Adapter interface, typed loosely: the payload is its own). */
export interface OAuthAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

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
  const live = (now: number) => (eb: any) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);

  function adapterFor(model: string): OAuthAdapter {
    const row = async (column: 'id_hash' | 'uid_hash', value: string) =>
      db
        .selectFrom('oauth_records')
        .select(['payload', 'consumed_at', 'id_hash'])
        .where('model', '=', model)
        .where(column, '=', sha256(value))
        .where(live(clock.now()))
        .executeTakeFirst();
    const payloadOf = (found: { payload: string; consumed_at: number | null }, id: string | undefined) => ({
      ...(JSON.parse(found.payload) as Record<string, unknown>),
      ...(id !== undefined && { jti: id }),
      ...(found.consumed_at !== null && { consumed: Math.floor(found.consumed_at / 1000) }),
    });
    return {
      async upsert(id, payload, expiresIn) {
        const { jti: _secret, ...stored } = payload;
        const now = clock.now();
        const values = {
          payload: JSON.stringify(stored),
          grant_id: model === 'Grant' ? id : ((payload.grantId as string | undefined) ?? null),
          uid_hash: typeof payload.uid === 'string' ? sha256(payload.uid) : null,
          account_id: (payload.accountId as string | undefined) ?? null,
          client_id: (payload.clientId as string | undefined) ?? (payload.client_id as string | undefined) ?? null,
          expires_at: expiresIn ? now + expiresIn * 1000 : null,
        };
        await db
          .insertInto('oauth_records')
          .values({ model, id_hash: sha256(id), ...values, client_name: null, consumed_at: null, created_at: now, last_used_at: null })
          .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(values))
          .execute();
      },
      async find(id) {
        const found = await row('id_hash', id);
        return found && payloadOf(found, id);
      },
      async findByUid(uid) {
        // The session's own id is not known here: oidc-provider reads it back from `jti`, which
        // the session payload keeps under `uid` lookups (a session's jti is its cookie value).
        const found = await row('uid_hash', uid);
        return found && payloadOf(found, undefined);
      },
      async findByUserCode() {
        return undefined;
      },
      async consume(id) {
        await db.updateTable('oauth_records').set({ consumed_at: clock.now() }).where('model', '=', model).where('id_hash', '=', sha256(id)).execute();
      },
      async destroy(id) {
        await db.deleteFrom('oauth_records').where('model', '=', model).where('id_hash', '=', sha256(id)).execute();
      },
      async revokeByGrantId(grantId) {
        await db.deleteFrom('oauth_records').where('model', '=', model).where('grant_id', '=', grantId).execute();
      },
    };
  }

  return {
    /** oidc-provider's `adapter` setting: one adapter per model name. */
    adapterFor,
    /** Deletes the rows past their expiry; returns how many. */
    async sweep(): Promise<number> {
      const result = await db.deleteFrom('oauth_records').where('expires_at', '<=', clock.now()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** A secret shared by every instance on this database: the first to ask creates it. */
    async sharedSecret(name: string, create: () => string = () => randomBytes(32).toString('base64url')): Promise<string> {
      await db.insertInto('oauth_secrets').values({ name, value: create() }).onConflict((oc) => oc.column('name').doNothing()).execute();
      const found = await db.selectFrom('oauth_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return found.value;
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
    /** Notes the client's name on its grant, for the Connected apps page. */
    async nameGrant(grantId: string, clientName: string): Promise<void> {
      await db.updateTable('oauth_records').set({ client_name: clientName }).where('model', '=', 'Grant').where('grant_id', '=', grantId).execute();
    },
    async touchGrant(grantId: string): Promise<void> {
      await db.updateTable('oauth_records').set({ last_used_at: clock.now() }).where('model', '=', 'Grant').where('grant_id', '=', grantId).execute();
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
