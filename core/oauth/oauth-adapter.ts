import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { OAuthTables } from './oauth.tables.ts';

/**
 * A consumed code or refresh token is kept this long (a day, or less if it expires sooner), so its
 * reuse is still caught and revokes the grant; then swept. A refresh token rotates every quarter
 * hour, so a grant holds about a hundred spent ones, not a month's worth.
 */
export const CONSUMED_KEPT_MS = 24 * 3600_000;

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

type Db = Kysely<OAuthTables>;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The rows not yet expired at `now`. */
export const live = (now: number) => (eb: any) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);

/** The payload oidc-provider stored, with its id (`jti`) and when it was consumed put back. */
const payloadOf = (found: { payload: string; consumed_at: number | null }, id: string | undefined) => ({
  ...(JSON.parse(found.payload) as Record<string, unknown>),
  ...(id !== undefined && { jti: id }),
  ...(found.consumed_at !== null && { consumed: Math.floor(found.consumed_at / 1000) }),
});

/** The columns a record is found by, read from its payload; the id itself (`jti`, a secret) is stored only as its hash. */
function recordColumns(model: string, id: string, payload: Record<string, unknown>, expiresAt: number | null) {
  const { jti: _secret, ...stored } = payload;
  return {
    payload: JSON.stringify(stored),
    grant_id: model === 'Grant' ? id : ((payload.grantId as string | undefined) ?? null),
    uid_hash: typeof payload.uid === 'string' ? sha256(payload.uid) : null,
    account_id: (payload.accountId as string | undefined) ?? null,
    client_id: (payload.clientId as string | undefined) ?? (payload.client_id as string | undefined) ?? null,
    expires_at: expiresAt,
  };
}

/** oidc-provider's storage of one model (tokens, codes, sessions, grants, clients) in `oauth_records`, keyed by the SHA-256 of their id. */
export function oauthAdapter(db: Db, clock: Clock, model: string): OAuthAdapter {
  const row = async (column: 'id_hash' | 'uid_hash', value: string) =>
    db
      .selectFrom('oauth_records')
      .select(['payload', 'consumed_at', 'id_hash'])
      .where('model', '=', model)
      .where(column, '=', sha256(value))
      .where(live(clock.now()))
      .executeTakeFirst();
  return {
    async upsert(id, payload, expiresIn) {
      const now = clock.now();
      const values = recordColumns(model, id, payload, expiresIn ? now + expiresIn * 1000 : null);
      await db
        .insertInto('oauth_records')
        .values({ model, id_hash: sha256(id), ...values, client_name: null, key_id: null, consumed_at: null, created_at: now, last_used_at: null })
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
      const now = clock.now();
      const keptUntil = now + CONSUMED_KEPT_MS;
      await db
        .updateTable('oauth_records')
        .set((eb) => ({
          consumed_at: now,
          expires_at: eb.case().when(eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', keptUntil)])).then(keptUntil).else(eb.ref('expires_at')).end(),
        }))
        .where('model', '=', model)
        .where('id_hash', '=', sha256(id))
        .execute();
    },
    async destroy(id) {
      await db.deleteFrom('oauth_records').where('model', '=', model).where('id_hash', '=', sha256(id)).execute();
    },
    async revokeByGrantId(grantId) {
      await db.deleteFrom('oauth_records').where('model', '=', model).where('grant_id', '=', grantId).execute();
    },
  };
}
