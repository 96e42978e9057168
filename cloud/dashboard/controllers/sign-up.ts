import type Router from '@koa/router';
import type { Context } from 'koa';
import { ServiceError } from '../../../core/errors.ts';
import { readFormBody } from '../../../edge/http/form-body.ts';
import type { SignupResult } from '../../merchants/signup.ts';
import { renderSignUp, renderWelcome, type Notice } from '../pages.ts';
import { refusalOf, type DashboardDeps, type PageKit } from '../page-kit.ts';
import { signupFieldNames, signupRequestOfForm } from '../signup-form.ts';

/**
 * The sign-up API's own function judges the form (same checks, same codes, same limit per IP), and
 * the answer shows the key and the webhook secret this once, signed in with that key.
 */
export function signUpPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud' | 'sessions' | 'clock' | 'signupLimit'>): void {
  const { sessions, clock } = deps;
  const signUpPage = (ctx: Context, extra: { notice?: Notice; values?: Record<string, string>; status?: number } = {}) => {
    kit.signedOutPage(ctx, (csrf) => renderSignUp({ css: kit.css, csrf, notice: extra.notice, values: extra.values }));
    if (extra.status) ctx.status = extra.status;
  };

  router.get('/signup', async (ctx) => {
    if (await kit.currentSession(ctx)) return ctx.redirect('/dashboard');
    signUpPage(ctx);
  });

  router.post('/signup', async (ctx) => {
    const form = await readFormBody(ctx);
    const fields = Object.fromEntries(signupFieldNames.map((name) => [name, form[name] ?? '']));
    if (!kit.signedOutFormChecked(ctx, form)) {
      return signUpPage(ctx, { notice: { kind: 'error', text: 'The sign-up form expired or came from another site. Try again.' }, values: fields, status: 403 });
    }
    let issued: SignupResult;
    try {
      issued = await deps.signupLimit(ctx.ip, () => deps.cloud.accounts.signup(signupRequestOfForm(fields)));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.extra.retryAfterS) ctx.set('Retry-After', String(error.extra.retryAfterS));
      // A private key is never sent back, not even into the form it came from.
      const values: Record<string, string> = error.code === 'private_key_rejected' ? { email: fields.email!, shop_name: fields.shop_name!, webhook_url: fields.webhook_url! } : fields;
      return signUpPage(ctx, { ...refusalOf(error), values });
    }
    const started = await sessions.signIn(issued.api_key, clock.now());
    if (!started || 'retryAfterS' in started) throw new Error('a key issued at sign-up did not open a session');
    kit.startSession(ctx, started.token);
    ctx.state.session = await sessions.find(started.token, clock.now());
    kit.show(ctx, renderWelcome(kit.frame(ctx, undefined, true), issued), 201);
  });
}
