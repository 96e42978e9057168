import type { Middleware } from 'koa';
import type { Kysely } from 'kysely';
import type { CloudTables } from '../cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import { hashApiKey } from '../api-keys.ts';
import { merchantByKeyHash, type MerchantRow } from '../merchant.repository.ts';
import type { Principal } from '../../listener/oauth/scopes.ts';

/** The merchant an API key belongs to and what the key may do; null for a wrong or revoked key. */
export async function keyPrincipal(db: Kysely<CloudTables>, key: string): Promise<{ merchant: MerchantRow; keyHash: string; principal: Principal } | null> {
  const keyHash = hashApiKey(key);
  const merchant = await merchantByKeyHash(db, keyHash);
  return merchant ? { merchant, keyHash, principal: { accountId: merchant.merchant_id, scopes: null, via: 'key' } } : null;
}

/**
 * Resolves `X-Service-Api-Key` to its merchant (by the key's SHA-256, the only form stored) and
 * puts the merchant and key hash on `ctx.state`: every keyed route works on that merchant only.
 */
export function requireMerchantKey(db: Kysely<CloudTables>): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('X-Service-Api-Key');
    const keyHash = key ? hashApiKey(key) : null;
    const merchant = keyHash ? await merchantByKeyHash(db, keyHash) : undefined;
    if (!merchant) throw new ServiceError('unauthorized', 'Missing or invalid API key (X-Service-Api-Key).');
    ctx.state.merchant = merchant;
    ctx.state.keyHash = keyHash;
    ctx.state.log = ctx.state.log?.child({ merchant_id: merchant.merchant_id });
    await next();
  };
}
