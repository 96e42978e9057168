import type { Middleware } from 'koa';
import type { Kysely } from 'kysely';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import { hashApiKey } from '../keys/api-keys.ts';
import { apiKeyOwner, type MerchantRow } from '../merchants/merchant.repository.ts';
import type { Principal } from '../../edge/oauth/scopes.ts';
import { routeTable } from '../../shared/routes.ts';

/** The merchant an API key belongs to and what the key may do; null for a wrong or revoked key. */
export async function keyPrincipal(db: Kysely<CloudTables>, key: string): Promise<{ merchant: MerchantRow; keyHash: string; principal: Principal } | null> {
  const keyHash = hashApiKey(key);
  const owner = await apiKeyOwner(db, keyHash);
  if (!owner) return null;
  const scopes = owner.scopes && new Set(owner.scopes);
  return { merchant: owner.merchant, keyHash, principal: { accountId: owner.merchant.merchant_id, scopes, via: 'key' } };
}

/**
 * A route for keys with `scope` (null: full-access keys only, as for account settings). A scoped
 * key without it gets 403 insufficient_scope naming what the route needs.
 */
export function requireKeyScope(scope: string | null): Middleware {
  return async (ctx, next) => {
    const scopes = (ctx.state.principal as Principal).scopes;
    if (scopes && (scope === null || !scopes.has(scope))) {
      throw new ServiceError('insufficient_scope', scope ? `This API key lacks the scope ${scope}.` : 'This API key is limited to invoice scopes; this route needs a full-access key.');
    }
    await next();
  };
}

/**
 * Resolves `X-Service-Api-Key` to its merchant (by the key's SHA-256, the only form stored) and
 * puts the merchant and key hash on `ctx.state`: every keyed route works on that merchant only.
 */
export function requireMerchantKey(db: Kysely<CloudTables>): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('X-Service-Api-Key');
    const found = key ? await keyPrincipal(db, key) : null;
    if (!found) throw new ServiceError('unauthorized', 'Missing or invalid API key (X-Service-Api-Key).');
    const { merchant } = found;
    ctx.state.merchant = merchant;
    ctx.state.keyHash = found.keyHash;
    ctx.state.principal = found.principal;
    ctx.state.log = ctx.state.log?.child({ merchant_id: merchant.merchant_id });
    await next();
  };
}

/** What the table declares a keyed route needs of its key: a scope, or null for a full-access key. */
function keyScopeOf(operationId: string): string | null {
  const { scope } = routeTable.find((route) => route.operationId === operationId)!;
  if (scope === 'full-access') return null;
  if (scope === 'invoices:read' || scope === 'invoices:write') return scope;
  throw new Error(`${operationId} takes a merchant key but declares the scope ${scope}`);
}

/** The guards of a keyed route: the key, then the scope its route declares in the table. */
export type KeyedRoute = (operationId: string) => Middleware[];

export function keyedRoute(db: Kysely<CloudTables>): KeyedRoute {
  const requireKey = requireMerchantKey(db);
  return (operationId) => [requireKey, requireKeyScope(keyScopeOf(operationId))];
}
