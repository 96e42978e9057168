import assert from 'node:assert/strict';
import { LOGIN_COOKIE, SESSION_COOKIE } from '../../cloud/dashboard/page-kit.ts';

export const FORM = 'application/x-www-form-urlencoded';
export const cookieOf = (setCookies: string[], name: string) => setCookies.find((c) => c.startsWith(`${name}=`));
export const valueOf = (setCookie: string | undefined) => setCookie?.split(';')[0]!.split('=')[1];

/** The sign-in form's token and its cookie, as a browser gets them. */
export async function loginForm(baseUrl: string) {
  const response = await fetch(`${baseUrl}/dashboard/login`);
  const html = await response.text();
  return { csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!, cookie: `${LOGIN_COOKIE}=${valueOf(cookieOf(response.headers.getSetCookie(), LOGIN_COOKIE))}` };
}

/** The sign-up form's token and its cookie, as a browser gets them, and the page. */
export async function signupForm(baseUrl: string) {
  const response = await fetch(`${baseUrl}/dashboard/signup`);
  const html = await response.text();
  return { html, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!, cookie: `${LOGIN_COOKIE}=${valueOf(cookieOf(response.headers.getSetCookie(), LOGIN_COOKIE))}` };
}

export function submitSignup(baseUrl: string, form: { csrf: string; cookie: string }, fields: Record<string, string>) {
  return fetch(`${baseUrl}/dashboard/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: form.cookie, 'content-type': FORM },
    body: new URLSearchParams({ csrf: form.csrf, ...fields }),
  });
}

export async function signIn(baseUrl: string, apiKey: string): Promise<string> {
  const form = await loginForm(baseUrl);
  const response = await fetch(`${baseUrl}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: form.cookie, 'content-type': FORM },
    body: new URLSearchParams({ csrf: form.csrf, api_key: apiKey }),
  });
  assert.equal(response.status, 303);
  return valueOf(cookieOf(response.headers.getSetCookie(), SESSION_COOKIE))!;
}

export const open = (baseUrl: string, path: string, token: string) => fetch(`${baseUrl}${path}`, { headers: { cookie: `${SESSION_COOKIE}=${token}` }, redirect: 'manual' });

/** Posts a dashboard form with the session cookie and the form token read from `pageHtml`. */
export function postForm(baseUrl: string, path: string, token: string, pageHtml: string, fields: Record<string, string> = {}) {
  const csrf = /name="csrf" value="([^"]+)"/.exec(pageHtml)![1]!;
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `${SESSION_COOKIE}=${token}`, 'content-type': FORM },
    body: new URLSearchParams({ csrf, ...fields }),
  });
}
