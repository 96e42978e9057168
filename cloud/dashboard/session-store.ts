import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { hashApiKey } from '../keys/api-keys.ts';
import { merchantByKeyHash, type MerchantRow } from '../merchants/merchant.repository.ts';

/** A session lasts at most this long, however active; then the key is asked for again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The form token of a session, derived from the session token (which only the HttpOnly cookie
 * holds): nothing more to store, and a page of another site can neither read nor guess it.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('dashboard csrf').digest('base64url');
}

/** Constant-time comparison of a submitted form token with the expected one. */
export function sameToken(submitted: unknown, expected: string): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface DashboardSession {
  token: string;
  merchant: MerchantRow;
  csrf: string;
}

export function createSessionStore(db: Kysely<CloudTables>) {
  return {
    /**
     * Signs in with an API key: a new session for its merchant (its expired ones swept), or null for
     * an unknown or revoked key. `admit` may hold back a matched key's merchant (seconds to wait).
     */
    async signIn(apiKey: string, now: number, admit: (merchantId: string) => Promise<number> = async () => 0): Promise<{ token: string; merchant: MerchantRow } | { retryAfterS: number } | null> {
      const keyHash = hashApiKey(apiKey.trim());
      const merchant = await merchantByKeyHash(db, keyHash);
      if (!merchant) return null;
      const retryAfterS = await admit(merchant.merchant_id);
      if (retryAfterS > 0) return { retryAfterS };
      const token = randomBytes(32).toString('base64url');
      await db.deleteFrom('cloud_dashboard_sessions').where('merchant_id', '=', merchant.merchant_id).where('expires_at', '<=', now).execute();
      await db
        .insertInto('cloud_dashboard_sessions')
        .values({ session_hash: sha256(token), merchant_id: merchant.merchant_id, key_hash: keyHash, created_at: now, expires_at: now + SESSION_TTL_MS })
        .execute();
      return { token, merchant };
    },

    /** The live session of a cookie token: unexpired, and its API key still unrevoked. */
    async find(token: string | undefined, now: number): Promise<DashboardSession | null> {
      if (!token) return null;
      const row = await db
        .selectFrom('cloud_dashboard_sessions')
        .select(['merchant_id', 'key_hash'])
        .where('session_hash', '=', sha256(token))
        .where('expires_at', '>', now)
        .executeTakeFirst();
      const merchant = row && (await merchantByKeyHash(db, row.key_hash));
      if (!merchant || merchant.merchant_id !== row.merchant_id) return null;
      return { token, merchant, csrf: csrfTokenOf(token) };
    },

    /** Ends the session (and sweeps this merchant's expired ones). */
    async signOut(session: DashboardSession, now: number): Promise<void> {
      await db
        .deleteFrom('cloud_dashboard_sessions')
        .where('merchant_id', '=', session.merchant.merchant_id)
        .where((eb) => eb.or([eb('session_hash', '=', sha256(session.token)), eb('expires_at', '<=', now)]))
        .execute();
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
