import type { RouteHandlers } from '../../edge/http/route-table.ts';
import { ServiceError } from '../../core/errors.ts';
import { readJsonBody } from '../../edge/http/json-body.ts';
import { parseKeyLabel, parseKeyScopes } from '../keys/api-keys.ts';
import type { KeyService } from '../keys/key-service.ts';
import type { KeyedRoute } from './auth.ts';

/** A new API key for the key's merchant, shown this once. */
export function keyHandlers(keys: KeyService, keyed: KeyedRoute): RouteHandlers {
  return {
    cloudCreateKey: [
      ...keyed('cloudCreateKey'),
      async (ctx) => {
        const body = (await readJsonBody(ctx)) as { label?: unknown; scopes?: unknown };
        const label = parseKeyLabel(body?.label);
        const scopes = parseKeyScopes(body?.scopes);
        if (label === null || scopes === null) throw new ServiceError('invalid_key_request', 'label must be 1-60 characters; scopes, when given, a non-empty list of invoices:read and invoices:write.');
        const issued = await keys.issue(ctx.state.merchant, label, scopes.scopes);
        ctx.status = 201;
        ctx.body = { api_key: issued.key, key_prefix: issued.prefix, label: issued.label, scopes: issued.scopes };
      },
    ],
  };
}
