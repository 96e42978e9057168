import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { LOGIN_COOKIE } from '../../../cloud/dashboard/page-kit.ts';
import { startTestCloud } from '../../helpers/cloud.ts';
import { cookieOf } from '../../helpers/dashboard.ts';
import { startTestListener } from '../../helpers/listener.ts';
import { REDIRECT_URL } from '../../helpers/oauth.ts';

/**
 * A proxy on the same host speaks plain http to the server and passes a loopback Host (nginx's
 * default `proxy_pass`): the request says http://127.0.0.1, the browser sees https. `Secure`
 * follows the configured PUBLIC_URL, never the request.
 */
const secureOf = (setCookie: string | undefined) => /;\s*secure(;|$)/i.test(setCookie ?? '');

describe('dashboard cookies: Secure as PUBLIC_URL says', () => {
  for (const [publicUrl, secure] of [
    ['https://pay.example.com', true],
    ['http://127.0.0.1:8080', false],
    [undefined, false],
  ] as const) {
    test(`PUBLIC_URL ${publicUrl ?? 'unset'} on a loopback server, asked over plain http with a loopback Host: ${secure ? '' : 'not '}Secure`, async () => {
      const cloud = await startTestCloud({ env: publicUrl ? { PUBLIC_URL: publicUrl } : {} });
      try {
        const response = await fetch(`${cloud.url}/dashboard/login`);
        const cookie = cookieOf(response.headers.getSetCookie(), LOGIN_COOKIE);
        assert.ok(cookie, 'the sign-in form sets its cookie');
        assert.equal(secureOf(cookie), secure, cookie);
        assert.match(cookie!, /HttpOnly; SameSite=Strict/);
      } finally {
        await cloud.stop();
      }
    });
  }
});

describe('consent (OAuth) cookies: Secure as PUBLIC_URL says', () => {
  for (const [publicUrl, secure] of [
    ['https://pay.example', true],
    [undefined, false],
  ] as const) {
    test(`PUBLIC_URL ${publicUrl ?? 'unset'}, asked over plain http: the interaction cookies are ${secure ? '' : 'not '}Secure`, async () => {
      const listener = await startTestListener({ env: { SERVICE_API_KEY: 'sk_test_cookie_key_0123456789', ...(publicUrl && { PUBLIC_URL: publicUrl }) } });
      try {
        const base = publicUrl ?? listener.url;
        const registered = await fetch(`${listener.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Cookie probe', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
        });
        assert.equal(registered.status, 201, await registered.clone().text());
        const { client_id } = (await registered.json()) as { client_id: string };
        const verifier = randomBytes(32).toString('base64url');
        const url = new URL(`${listener.url}/oauth/authorize`);
        url.search = new URLSearchParams({
          client_id,
          response_type: 'code',
          redirect_uri: REDIRECT_URL,
          code_challenge: createHash('sha256').update(verifier).digest('base64url'),
          code_challenge_method: 'S256',
          scope: 'invoices:read',
          state: 'st',
          resource: `${base}/mcp`,
        }).toString();
        const response = await fetch(url, { redirect: 'manual' });
        assert.equal(response.status, 303, await response.clone().text());
        const cookies = response.headers.getSetCookie();
        assert.ok(cookies.length >= 1, 'the authorization sets the interaction cookies');
        for (const cookie of cookies) assert.equal(secureOf(cookie), secure, cookie);
      } finally {
        await listener.stop();
      }
    });
  }
});
