import { randomBytes } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { errorCatalogue } from '../../shared/index.ts';
import { loadHashedAsset } from '../../edge/checkout/assets.ts';
import { setHtmlPageHeaders } from '../../edge/checkout/routes.ts';
import { loadDashboardStylesheet } from '../../edge/http/dashboard-style.ts';
import type { CallLimit } from '../../edge/http/rate-limit.ts';
import type { SignInThrottle } from '../../edge/http/sign-in-throttle.ts';
import { readFormBody } from '../../edge/http/form-body.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { OAuthStore } from '../../core/oauth/oauth-store.ts';
import type { CloudService } from '../cloud-service.ts';
import { renderMessagePage, type Notice, type PageFrame, type Stylesheet } from './pages.ts';
import { sameToken, SESSION_TTL_MS, type DashboardSession, type SessionStore } from './session-store.ts';

export interface DashboardDeps {
  cloud: CloudService;
  sessions: SessionStore;
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

export const setPageHeaders = (ctx: Context) => setHtmlPageHeaders(ctx, DASHBOARD_CSP, 'same-origin');

/** A readable sentence for a service error, with the contract code for support. */
export const noticeOf = (error: ServiceError): Notice => ({ kind: 'error', text: `${error.message} (${error.code})` });

/** A form's refusal, shown on its page: a service error's notice and status; anything else is not a refusal and goes on up. */
export function refusalOf(error: unknown): { notice: Notice; status: number } {
  if (!(error instanceof ServiceError)) throw error;
  return { notice: noticeOf(error), status: errorCatalogue[error.code].status };
}

/** What every dashboard page shares: its assets, cookies, the session and form-token checks, and how a page is answered. */
export function createPageKit(deps: Pick<DashboardDeps, 'sessions' | 'clock' | 'logger' | 'secureCookies'>) {
  const { sessions, clock } = deps;
  const stylesheet = loadDashboardStylesheet();
  const copyScript = loadHashedAsset(new URL('./public/', import.meta.url), 'dashboard.js', 'text/javascript; charset=utf-8');
  const css: Stylesheet = { url: `/dashboard/assets/${stylesheet.name}`, integrity: stylesheet.integrity };
  const script: Stylesheet = { url: `/dashboard/assets/${copyScript.name}`, integrity: copyScript.integrity };
  const secure = deps.secureCookies ? '; Secure' : '';
  const setCookie = (ctx: Context, name: string, value: string, maxAgeS: number) =>
    ctx.append('Set-Cookie', `${name}=${value}; Path=/dashboard; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure}`);
  const show = (ctx: Context, html: string, status = 200) => {
    setPageHeaders(ctx);
    ctx.status = status;
    ctx.body = html;
  };
  const message = (ctx: Context, status: number, title: string, text: string) => show(ctx, renderMessagePage(css, title, text), status);
  const logOf = (ctx: Context) => (ctx.state.log as Logger | undefined) ?? deps.logger;

  return {
    assets: [stylesheet, copyScript],
    css,
    show,
    message,
    logOf,
    setCookie,
    /** The live session of the request's cookie, if any. */
    currentSession: (ctx: Context) => sessions.find(ctx.cookies.get(SESSION_COOKIE), clock.now()),

    /** Any failure a handler did not turn into a notice still answers with a readable page, never a blank one. */
    htmlErrors: (async (ctx, next) => {
      try {
        await next();
      } catch (error) {
        if (error instanceof ServiceError) return message(ctx, errorCatalogue[error.code].status, 'Something is not right', noticeOf(error).text);
        logOf(ctx).error('dashboard page failed', { error, stack: (error as Error)?.stack });
        message(ctx, 500, 'Something went wrong', 'The dashboard could not show this page. Try again in a moment.');
      }
    }) as Middleware,

    /** A page before sign-in (sign-in, sign-up): its form token goes in a cookie, checked on submit (double submit). */
    signedOutPage(ctx: Context, render: (csrf: string) => string) {
      const csrf = randomBytes(24).toString('base64url');
      setCookie(ctx, LOGIN_COOKIE, csrf, 60 * 60);
      setPageHeaders(ctx);
      ctx.body = render(csrf);
    },
    signedOutFormChecked(ctx: Context, form: Record<string, string>) {
      const expected = ctx.cookies.get(LOGIN_COOKIE);
      return Boolean(expected && sameToken(form.csrf, expected));
    },
    startSession(ctx: Context, token: string) {
      setCookie(ctx, LOGIN_COOKIE, '', 0);
      setCookie(ctx, SESSION_COOKIE, token, SESSION_TTL_MS / 1000);
    },

    /** Puts the live session on ctx.state; without one, pages go to sign-in and posts are refused. */
    signedIn: (async (ctx, next) => {
      const session = await sessions.find(ctx.cookies.get(SESSION_COOKIE), clock.now());
      if (!session) {
        if (ctx.method === 'GET') return ctx.redirect('/dashboard/login');
        return message(ctx, 401, 'Signed out', 'Your session has ended. Sign in again with your API key.');
      }
      ctx.state.session = session;
      ctx.state.log = ctx.state.log?.child({ merchant_id: session.merchant.merchant_id });
      await next();
    }) as Middleware,

    /** Every POST carries the session's form token; a form from another site cannot. */
    checkedForm: (async (ctx, next) => {
      const form = await readFormBody(ctx);
      const session = ctx.state.session as DashboardSession;
      if (!sameToken(form.csrf, session.csrf)) {
        return message(ctx, 403, 'Form refused', 'This form was not sent from your dashboard page, or the page is out of date. Reload the page and try again.');
      }
      ctx.state.form = form;
      await next();
    }) as Middleware,

    frame(ctx: Context, notice?: Notice, withScript = false): PageFrame {
      const session = ctx.state.session as DashboardSession;
      return { css, ...(withScript ? { script } : {}), shopName: session.merchant.shop_name, csrf: session.csrf, notice };
    },
  };
}

export type PageKit = ReturnType<typeof createPageKit>;
