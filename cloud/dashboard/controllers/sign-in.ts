import type Router from '@koa/router';
import type { Context } from 'koa';
import { readFormBody } from '../../../edge/http/form-body.ts';
import { renderSignIn, type Notice } from '../pages.ts';
import { SESSION_COOKIE, type DashboardDeps, type PageKit } from '../page-kit.ts';

/** Sign-in with an API key (throttled per address and per account), and sign-out. */
export function signInPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'sessions' | 'clock' | 'signInThrottle'>): void {
  const { sessions, clock } = deps;
  const signInPage = (ctx: Context, notice?: Notice) => kit.signedOutPage(ctx, (csrf) => renderSignIn({ css: kit.css, csrf, notice }));

  router.get('/login', async (ctx) => {
    if (await kit.currentSession(ctx)) return ctx.redirect('/dashboard');
    signInPage(ctx);
  });

  router.post('/login', async (ctx) => {
    const form = await readFormBody(ctx);
    if (!kit.signedOutFormChecked(ctx, form)) {
      ctx.status = 403;
      return signInPage(ctx, { kind: 'error', text: 'The sign-in form expired or came from another site. Try again.' });
    }
    // Every attempt counts, not only failed ones: the slot is taken before the key is looked up,
    // so guesses sent in parallel cannot all pass while the window still looks open.
    const throttle = deps.signInThrottle;
    const retryAfterS = throttle ? await throttle.attempt(ctx.ip) : 0;
    const started = retryAfterS > 0 || !form.api_key ? null : await sessions.signIn(form.api_key, clock.now(), (merchantId) => (throttle ? throttle.signedIn(merchantId) : Promise.resolve(0)));
    const waitS = started && 'retryAfterS' in started ? started.retryAfterS : retryAfterS;
    if (waitS > 0) {
      kit.logOf(ctx).warn('dashboard sign-in throttled', { ip: ctx.ip, retry_after_s: waitS, per: retryAfterS > 0 ? 'address' : 'account' });
      ctx.status = 429;
      ctx.set('Retry-After', String(waitS));
      const who = retryAfterS > 0 ? 'Too many sign-in attempts from your network' : 'Too many sign-ins to this account';
      return signInPage(ctx, { kind: 'error', text: `${who}. Try again in ${waitS} seconds.` });
    }
    if (!started || 'retryAfterS' in started) {
      ctx.status = 401;
      return signInPage(ctx, { kind: 'error', text: 'That API key is not valid or has been revoked.' });
    }
    kit.startSession(ctx, started.token);
    ctx.status = 303;
    ctx.redirect('/dashboard');
  });

  router.post('/logout', kit.signedIn, kit.checkedForm, async (ctx) => {
    await sessions.signOut(ctx.state.session, clock.now());
    kit.setCookie(ctx, SESSION_COOKIE, '', 0);
    ctx.status = 303;
    ctx.redirect('/dashboard/login');
  });
}
