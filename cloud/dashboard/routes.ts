import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { errorCatalogue } from '../../shared/index.ts';
import { loadHashedAsset } from '../../edge/checkout/assets.ts';
import { loadDashboardStylesheet } from '../../edge/http/dashboard-style.ts';
import { serveHashedAsset, setHtmlPageHeaders } from '../../edge/checkout/routes.ts';
import { renderQrSvg } from '../../edge/checkout/qr-svg.ts';
import type { CallLimit } from '../../edge/http/rate-limit.ts';
import type { SignInThrottle } from '../../edge/http/sign-in-throttle.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { OAuthStore } from '../../core/oauth/oauth-store.ts';
import { keyAccessOf, KEY_LABEL_MAX, parseKeyLabel } from '../keys/api-keys.ts';
import type { CloudService } from '../cloud-service.ts';
import { planCatalogue } from '../billing/plans.ts';
import { readFormBody } from '../../edge/http/form-body.ts';
import { invoiceRequestOfForm } from './invoice-form.ts';
import {
  renderInvoices,
  renderConnectedApps,
  renderKeys,
  renderMessagePage,
  renderNewInvoice,
  renderOverview,
  renderPlan,
  renderRevokeKey,
  renderSignIn,
  renderSignUp,
  renderWebhooks,
  renderWelcome,
  type IssuedKey,
  type Notice,
  type PageFrame,
  type Stylesheet,
} from './pages.ts';
import { signupFieldNames, signupRequestOfForm } from './signup-form.ts';
import { sameToken, SESSION_TTL_MS, type DashboardSession, type SessionStore } from './session-store.ts';

export interface DashboardDeps {
  cloud: CloudService;
  sessions: SessionStore;
  /** Sign-in attempts per client IP and overall, shared by every instance; null: not throttled. */
  /** Dashboard sign-ins per address (overall, sparing fresh addresses) and per account; null: off. */
  signInThrottle: SignInThrottle | null;
  /** The sign-up API's own limit (its windows, per client IP): a sign-up here counts as one there. */
  signupLimit: CallLimit;
  clock: Clock;
  logger: Logger;
  /** The OAuth grants behind the Connected apps page. */
  oauthStore: OAuthStore;
  /** Whether the cookies carry `Secure` (secureCookies: PUBLIC_URL's scheme), never judged from the request. */
  secureCookies: boolean;
}

/** Server-rendered pages, one stylesheet, one script of this origin for copy buttons; forms post only to this origin. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SESSION_COOKIE = 'svc_session';
/** Before sign-in there is no session: the sign-in form's token is checked against this cookie (double submit). */
export const LOGIN_COOKIE = 'svc_login';


const setPageHeaders = (ctx: Context) => setHtmlPageHeaders(ctx, DASHBOARD_CSP, 'same-origin');

/** A readable sentence for a service error, with the contract code for support. */
const noticeOf = (error: ServiceError): Notice => ({ kind: 'error', text: `${error.message} (${error.code})` });

/** The merchant dashboard under `/dashboard`, signed in with an API key, over the Cloud service functions. */
export function dashboardRoutes(deps: DashboardDeps): Router {
  const { cloud, sessions, clock } = deps;
  const asset = loadDashboardStylesheet();
  const css: Stylesheet = { url: `/dashboard/assets/${asset.name}`, integrity: asset.integrity };
  const scriptAsset = loadHashedAsset(new URL('./public/', import.meta.url), 'dashboard.js', 'text/javascript; charset=utf-8');
  const script: Stylesheet = { url: `/dashboard/assets/${scriptAsset.name}`, integrity: scriptAsset.integrity };
  const router = new Router({ prefix: '/dashboard' });
  const secure = deps.secureCookies ? '; Secure' : '';
  const setCookie = (ctx: Context, name: string, value: string, maxAgeS: number) =>
    ctx.append('Set-Cookie', `${name}=${value}; Path=/dashboard; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure}`);

  /** Any failure a handler did not turn into a notice still answers with a readable page, never a blank one. */
  const htmlErrors: Middleware = async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      setPageHeaders(ctx);
      if (error instanceof ServiceError) {
        ctx.status = errorCatalogue[error.code].status;
        ctx.body = renderMessagePage(css, 'Something is not right', noticeOf(error).text);
        return;
      }
      ((ctx.state.log as Logger | undefined) ?? deps.logger).error('dashboard page failed', { error, stack: (error as Error)?.stack });
      ctx.status = 500;
      ctx.body = renderMessagePage(css, 'Something went wrong', 'The dashboard could not show this page. Try again in a moment.');
    }
  };

  /** A page before sign-in (sign-in, sign-up): its form token goes in a cookie, checked on submit (double submit). */
  const signedOutPage = (ctx: Context, render: (csrf: string) => string) => {
    const csrf = randomBytes(24).toString('base64url');
    setCookie(ctx, LOGIN_COOKIE, csrf, 60 * 60);
    setPageHeaders(ctx);
    ctx.body = render(csrf);
  };
  const signInPage = (ctx: Context, notice?: Notice) => signedOutPage(ctx, (csrf) => renderSignIn({ css, csrf, notice }));
  const signedOutFormChecked = (ctx: Context, form: Record<string, string>) => {
    const expected = ctx.cookies.get(LOGIN_COOKIE);
    return Boolean(expected && sameToken(form.csrf, expected));
  };
  const startSession = (ctx: Context, token: string) => {
    setCookie(ctx, LOGIN_COOKIE, '', 0);
    setCookie(ctx, SESSION_COOKIE, token, SESSION_TTL_MS / 1000);
  };

  /** Puts the live session on ctx.state; without one, pages go to sign-in and posts are refused. */
  const signedIn: Middleware = async (ctx, next) => {
    const session = await sessions.find(ctx.cookies.get(SESSION_COOKIE), clock.now());
    if (!session) {
      if (ctx.method === 'GET') return ctx.redirect('/dashboard/login');
      ctx.status = 401;
      setPageHeaders(ctx);
      ctx.body = renderMessagePage(css, 'Signed out', 'Your session has ended. Sign in again with your API key.');
      return;
    }
    ctx.state.session = session;
    ctx.state.log = ctx.state.log?.child({ merchant_id: session.merchant.merchant_id });
    await next();
  };

  /** Every POST carries the session's form token; a form from another site cannot. */
  const checkedForm: Middleware = async (ctx, next) => {
    const form = await readFormBody(ctx);
    const session = ctx.state.session as DashboardSession;
    if (!sameToken(form.csrf, session.csrf)) {
      ctx.status = 403;
      setPageHeaders(ctx);
      ctx.body = renderMessagePage(css, 'Form refused', 'This form was not sent from your dashboard page, or the page is out of date. Reload the page and try again.');
      return;
    }
    ctx.state.form = form;
    await next();
  };

  const frame = (ctx: Context, notice?: Notice, withScript = false): PageFrame => {
    const session = ctx.state.session as DashboardSession;
    return { css, ...(withScript ? { script } : {}), shopName: session.merchant.shop_name, csrf: session.csrf, notice };
  };
  const show = (ctx: Context, html: string, status = 200) => {
    setPageHeaders(ctx);
    ctx.status = status;
    ctx.body = html;
  };

  router.use(htmlErrors);

  router.get('/assets/:file', (ctx) => {
    if (ctx.params.file === asset.name) serveHashedAsset(ctx, asset);
    if (ctx.params.file === scriptAsset.name) serveHashedAsset(ctx, scriptAsset);
  });

  router.get('/login', async (ctx) => {
    if (await sessions.find(ctx.cookies.get(SESSION_COOKIE), clock.now())) return ctx.redirect('/dashboard');
    signInPage(ctx);
  });

  router.post('/login', async (ctx) => {
    const form = await readFormBody(ctx);
    if (!signedOutFormChecked(ctx, form)) {
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
      ((ctx.state.log as Logger | undefined) ?? deps.logger).warn('dashboard sign-in throttled', { ip: ctx.ip, retry_after_s: waitS, per: retryAfterS > 0 ? 'address' : 'account' });
      ctx.status = 429;
      ctx.set('Retry-After', String(waitS));
      const who = retryAfterS > 0 ? 'Too many sign-in attempts from your network' : 'Too many sign-ins to this account';
      return signInPage(ctx, { kind: 'error', text: `${who}. Try again in ${waitS} seconds.` });
    }
    if (!started || 'retryAfterS' in started) {
      ctx.status = 401;
      return signInPage(ctx, { kind: 'error', text: 'That API key is not valid or has been revoked.' });
    }
    startSession(ctx, started.token);
    ctx.status = 303;
    ctx.redirect('/dashboard');
  });

  const signUpPage = (ctx: Context, extra: { notice?: Notice; values?: Record<string, string>; status?: number } = {}) => {
    signedOutPage(ctx, (csrf) => renderSignUp({ css, csrf, notice: extra.notice, values: extra.values }));
    if (extra.status) ctx.status = extra.status;
  };
  router.get('/signup', async (ctx) => {
    if (await sessions.find(ctx.cookies.get(SESSION_COOKIE), clock.now())) return ctx.redirect('/dashboard');
    signUpPage(ctx);
  });
  /**
   * The sign-up API's own function judges the form (same checks, same codes, same limit per IP), and
   * the answer shows the key and the webhook secret this once, signed in with that key.
   */
  router.post('/signup', async (ctx) => {
    const form = await readFormBody(ctx);
    const fields = Object.fromEntries(signupFieldNames.map((name) => [name, form[name] ?? '']));
    if (!signedOutFormChecked(ctx, form)) {
      return signUpPage(ctx, { notice: { kind: 'error', text: 'The sign-up form expired or came from another site. Try again.' }, values: fields, status: 403 });
    }
    let issued: Awaited<ReturnType<CloudService['signup']>>;
    try {
      issued = await deps.signupLimit(ctx.ip, () => cloud.signup(signupRequestOfForm(fields)));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.extra.retryAfterS) ctx.set('Retry-After', String(error.extra.retryAfterS));
      // A private key is never sent back, not even into the form it came from.
      const values: Record<string, string> = error.code === 'private_key_rejected' ? { email: fields.email!, shop_name: fields.shop_name!, webhook_url: fields.webhook_url! } : fields;
      return signUpPage(ctx, { notice: noticeOf(error), values, status: errorCatalogue[error.code].status });
    }
    const started = await sessions.signIn(issued.api_key, clock.now());
    if (!started || 'retryAfterS' in started) throw new Error('a key issued at sign-up did not open a session');
    startSession(ctx, started.token);
    ctx.state.session = await sessions.find(started.token, clock.now());
    show(ctx, renderWelcome(frame(ctx, undefined, true), issued), 201);
  });

  router.post('/logout', signedIn, checkedForm, async (ctx) => {
    await sessions.signOut(ctx.state.session, clock.now());
    setCookie(ctx, SESSION_COOKIE, '', 0);
    ctx.status = 303;
    ctx.redirect('/dashboard/login');
  });

  router.get('/', signedIn, async (ctx) => {
    show(ctx, renderOverview(frame(ctx), await cloud.me(ctx.state.session.merchant)));
  });

  router.get('/invoices', signedIn, async (ctx) => {
    const { invoices } = await cloud.listInvoices(ctx.state.session.merchant, '100');
    show(ctx, renderInvoices(frame(ctx), invoices, cloud.checkoutUrl));
  });

  router.get('/invoices/new', signedIn, (ctx) => {
    show(ctx, renderNewInvoice(frame(ctx), { assets: cloud.enabledAssets(ctx.state.session.merchant) }));
  });
  /** Created through the API's own function (plan limit, validation, codes); a refusal keeps the form filled in. */
  router.post('/invoices', signedIn, checkedForm, async (ctx) => {
    const merchant = ctx.state.session.merchant;
    const assets = cloud.enabledAssets(merchant);
    const values = ctx.state.form as Record<string, string>;
    try {
      const { body, numberTexts } = invoiceRequestOfForm(values, assets);
      const invoice = await cloud.createInvoice(merchant, body, numberTexts);
      const checkoutUrl = 'checkout_url' in invoice ? invoice.checkout_url : null;
      const amount = 'amount_btc' in invoice ? invoice.amount_btc : invoice.amount_usdc;
      const qrSvg = await renderQrSvg(checkoutUrl ?? invoice.qr_uri);
      show(ctx, renderNewInvoice(frame(ctx, undefined, true), { assets, created: { invoiceId: invoice.invoice_id, amount, asset: invoice.asset, checkoutUrl, qrSvg } }), 201);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      show(ctx, renderNewInvoice(frame(ctx, noticeOf(error)), { assets, values }), errorCatalogue[error.code].status);
    }
  });

  const webhooksPage = async (ctx: Context, extra: { notice?: Notice; newSecret?: string; status?: number } = {}) => {
    const merchant = ctx.state.session.merchant;
    const [account, deliveries] = await Promise.all([cloud.me(merchant), cloud.recentDeliveries(merchant)]);
    show(ctx, renderWebhooks(frame(ctx, extra.notice), { webhookUrl: account.webhook_url, deliveries, newSecret: extra.newSecret }), extra.status);
  };

  /** Saving and rotating answer with the page itself: the new secret is in that one response only. */
  const withNewSecret = (change: (ctx: Context) => Promise<{ webhook_secret: string }>): Middleware => async (ctx) => {
    try {
      const saved = await change(ctx);
      await webhooksPage(ctx, { newSecret: saved.webhook_secret });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      await webhooksPage(ctx, { notice: noticeOf(error), status: errorCatalogue[error.code].status });
    }
  };

  router.get('/webhooks', signedIn, (ctx) => webhooksPage(ctx));
  router.post('/webhooks', signedIn, checkedForm, withNewSecret((ctx) => cloud.setWebhook(ctx.state.session.merchant, { webhook_url: ctx.state.form.webhook_url })));
  router.post('/webhooks/rotate', signedIn, checkedForm, withNewSecret((ctx) => cloud.rotateWebhookSecret(ctx.state.session.merchant)));
  router.post('/webhooks/resend', signedIn, checkedForm, async (ctx) => {
    const eventId = String(ctx.state.form.event_id ?? '');
    const queued = await cloud.resendDelivery(ctx.state.session.merchant, eventId);
    await webhooksPage(ctx, {
      notice: queued ? { kind: 'ok', text: `Event ${eventId} is queued for one more attempt.` } : { kind: 'error', text: `Event ${eventId} cannot be re-sent now (unknown, or still queued).` },
      status: queued ? 200 : 409,
    });
  });

  const keysPage = async (ctx: Context, extra: { notice?: Notice; issued?: IssuedKey; status?: number } = {}) => {
    const { api_keys } = await cloud.me(ctx.state.session.merchant);
    show(ctx, renderKeys(frame(ctx, extra.notice), api_keys, extra.issued), extra.status);
  };
  const keyNotFound = (prefix: string): Notice => ({ kind: 'error', text: `There is no active key ${prefix}… on this account.` });
  const lastKey = (prefix: string): Notice => ({
    kind: 'error',
    text: `${prefix}… is your only active key, so it cannot be revoked: you would be locked out. Issue a new key first, then revoke this one.`,
  });

  router.get('/keys', signedIn, (ctx) => keysPage(ctx));
  /** The new key is in this response only: a reload of /keys shows its prefix, never the key. */
  router.post('/keys', signedIn, checkedForm, async (ctx) => {
    const label = parseKeyLabel(ctx.state.form.label);
    if (label === null) {
      return keysPage(ctx, { notice: { kind: 'error', text: `A key label is 1-${KEY_LABEL_MAX} characters, without control characters. No key was issued.` }, status: 400 });
    }
    const access = keyAccessOf(ctx.state.form.access);
    if (access === undefined) {
      return keysPage(ctx, { notice: { kind: 'error', text: 'Choose one of the access levels offered. No key was issued.' }, status: 400 });
    }
    await keysPage(ctx, { issued: await cloud.issueApiKey(ctx.state.session.merchant, label, access && access.join(' ')) });
  });
  router.get('/keys/revoke', signedIn, async (ctx) => {
    const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
    const active = (await cloud.me(ctx.state.session.merchant)).api_keys.filter((k) => !k.revoked);
    const key = active.find((k) => k.prefix === prefix);
    if (!key) return keysPage(ctx, { notice: keyNotFound(prefix), status: 404 });
    if (active.length === 1) return keysPage(ctx, { notice: lastKey(prefix), status: 409 });
    show(ctx, renderRevokeKey(frame(ctx), key));
  });
  router.post('/keys/revoke', signedIn, checkedForm, async (ctx) => {
    const prefix = ctx.state.form.prefix ?? '';
    const outcome = await cloud.revokeApiKey(ctx.state.session.merchant, prefix);
    if (outcome === 'not_found') return keysPage(ctx, { notice: keyNotFound(prefix), status: 404 });
    if (outcome === 'last_key') return keysPage(ctx, { notice: lastKey(prefix), status: 409 });
    if (!(await sessions.find(ctx.cookies.get(SESSION_COOKIE), clock.now()))) {
      // This session was opened with the revoked key and ended with it.
      setCookie(ctx, SESSION_COOKIE, '', 0);
      return show(ctx, renderMessagePage(css, 'Signed out', `Key ${prefix}… is revoked. You signed in with it, so this session has ended: sign in with another active key.`));
    }
    await keysPage(ctx, {
      notice: { kind: 'ok', text: `Key ${prefix}… is revoked: requests with it now get 401 unauthorized, and dashboard sessions signed in with it have ended.` },
    });
  });

  const appsPage = async (ctx: Context, notice?: Notice, status = 200) => {
    show(ctx, renderConnectedApps(frame(ctx, notice), await deps.oauthStore.connectedApps(ctx.state.session.merchant.merchant_id)), status);
  };
  router.get('/apps', signedIn, (ctx) => appsPage(ctx));
  router.post('/apps/revoke', signedIn, checkedForm, async (ctx) => {
    const revoked = await deps.oauthStore.revokeGrant(ctx.state.session.merchant.merchant_id, ctx.state.form.grant_id ?? '');
    if (!revoked) return appsPage(ctx, { kind: 'error', text: 'No such connected app (already revoked?).' }, 404);
    await appsPage(ctx, { kind: 'ok', text: 'Access revoked: the app can no longer call the MCP endpoint, and its refresh token no longer works.' });
  });

  const planPage = async (ctx: Context, extra: { notice?: Notice; checkout?: { plan: string; amountUsd: number; url: string }; portalUrl?: string; status?: number } = {}) => {
    const merchant = ctx.state.session.merchant;
    const [account, card] = await Promise.all([cloud.me(merchant), cloud.cardSubscription(merchant)]);
    const { payment_methods } = cloud.plans();
    show(
      ctx,
      renderPlan(frame(ctx, extra.notice), {
        current: account.plan,
        expiresAt: account.plan_expires_at,
        plans: planCatalogue,
        methods: payment_methods,
        checkout: extra.checkout,
        card,
        portalUrl: extra.portalUrl,
      }),
      extra.status,
    );
  };
  router.get('/plan', signedIn, (ctx) => planPage(ctx));
  /** A plan form answers with the plan page: what the action returned, or its error as a notice. */
  const planAction =
    (act: (ctx: Context) => Promise<Parameters<typeof planPage>[1]>): Middleware =>
    async (ctx) => {
      try {
        await planPage(ctx, await act(ctx));
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        await planPage(ctx, { notice: noticeOf(error), status: errorCatalogue[error.code].status });
      }
    };
  router.post(
    '/plan',
    signedIn,
    checkedForm,
    planAction(async (ctx) => {
      const started = await cloud.billingCheckout(ctx.state.session.merchant, { plan: ctx.state.form.plan, method: ctx.state.form.method });
      return { checkout: { plan: started.plan, amountUsd: started.amount_usd, url: started.checkout_url } };
    }),
  );
  // Answered with a link rather than a redirect: the page's CSP (form-action 'self') would block a form redirected to Stripe.
  router.post(
    '/plan/card',
    signedIn,
    checkedForm,
    planAction(async (ctx) => ({ portalUrl: (await cloud.cardPortal(ctx.state.session.merchant)).url })),
  );

  router.get('/{*rest}', (ctx) => show(ctx, renderMessagePage(css, 'Page not found', 'There is no dashboard page at this address.'), 404));

  return router;
}
