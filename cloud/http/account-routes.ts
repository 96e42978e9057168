import type { RouteHandlers } from '../../edge/http/route-table.ts';
import { readJsonBody } from '../../edge/http/json-body.ts';
import { limitRequests, type CallLimit } from '../../edge/http/rate-limit.ts';
import type { AccountService } from '../merchants/account-service.ts';
import type { KeyedRoute } from './auth.ts';

/** Sign-up (limited per client IP), the account of the key's merchant, and its Lightning wallet connection. */
export function accountHandlers(accounts: AccountService, keyed: KeyedRoute, signupLimit: CallLimit): RouteHandlers {
  return {
    cloudSignup: [
      limitRequests(signupLimit, (ctx) => ctx.ip),
      async (ctx) => {
        const body = await readJsonBody(ctx);
        ctx.status = 201;
        ctx.body = await accounts.signup(body);
      },
    ],
    cloudSetLightning: [
      ...keyed('cloudSetLightning'),
      async (ctx) => {
        ctx.body = await accounts.setLightning(ctx.state.merchant, await readJsonBody(ctx));
      },
    ],
    cloudMe: [
      ...keyed('cloudMe'),
      async (ctx) => {
        ctx.body = await accounts.me(ctx.state.merchant);
      },
    ],
  };
}
