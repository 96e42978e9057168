import type { Context } from 'koa';
import { setHtmlPageHeaders } from '../checkout/routes.ts';

// No form-action: browsers apply it to the redirect after the consent form, and clients come back on
// their own schemes (https, loopback http, cursor://, vscode://). The form carries its CSRF token.
const PAGE_CSP = ["default-src 'none'", "style-src 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

/** The headers of every page the authorization server serves (consent, Connected apps, errors). */
export const setOAuthPageHeaders = (ctx: Context) => setHtmlPageHeaders(ctx, PAGE_CSP, 'no-referrer');

export function sendPage(ctx: Context, status: number, html: string): void {
  setOAuthPageHeaders(ctx);
  ctx.status = status;
  ctx.body = html;
}

/** An error in the OAuth JSON format, for the back-channel endpoints. */
export function sendOAuthJson(ctx: Context, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}
