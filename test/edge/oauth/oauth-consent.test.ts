import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { RunningListener } from '../../../listener/app.ts';
import { startTestListener } from '../../helpers/listener.ts';
import { CookieJar } from '../../helpers/oauth.ts';

const API_KEY = 'oauth-consent-test-key-0123456789';

/** The consent page a client with this metadata gets for an authorization to `redirectUri`. */
async function consentPageFor(listener: RunningListener, metadata: Record<string, unknown>, redirectUri: string): Promise<string> {
  const registered = await fetch(`${listener.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], redirect_uris: [redirectUri], ...metadata }),
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const { client_id } = (await registered.json()) as { client_id: string };
  const url = new URL(`${listener.url}/oauth/authorize`);
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  url.search = new URLSearchParams({ client_id, response_type: 'code', redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', scope: 'invoices:read', resource: `${listener.url}/mcp` }).toString();
  const jar = new CookieJar();
  const toConsent = await jar.fetch(url);
  assert.equal(toConsent.status, 303, await toConsent.clone().text());
  const page = await jar.fetch(new URL(toConsent.headers.get('location')!, url));
  assert.equal(page.status, 200);
  return page.text();
}

const textOf = (html: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];

describe('the consent page shows the truth about where the code goes and who asks', () => {
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
  });
  after(async () => {
    await listener?.stop();
  });

  test('a native client named "Claude" on com.evil.app://claude.ai: the full scheme and host, a custom-scheme warning, the name marked as its own claim', async () => {
    const html = await consentPageFor(listener, { client_name: 'Claude', application_type: 'native' }, 'com.evil.app://claude.ai/callback');
    assert.equal(textOf(html, 'client-name'), 'Claude');
    assert.equal(textOf(html, 'client-name-source'), '(the name the app gives itself, not verified)');
    assert.equal(textOf(html, 'redirect-origin'), 'com.evil.app://claude.ai');
    assert.match(textOf(html, 'redirect-warning')!, /an app on this device through its own link scheme, not to a website/);
    assert.doesNotMatch(html, /back to<\/dt><dd><code[^>]*>claude\.ai</, 'never the host alone');
  });

  test('a loopback redirect: the scheme, host and port, with a loopback warning', async () => {
    const html = await consentPageFor(listener, { client_name: 'Local agent' }, 'http://127.0.0.1:53682/callback');
    assert.equal(textOf(html, 'redirect-origin'), 'http://127.0.0.1:53682');
    assert.match(textOf(html, 'redirect-warning')!, /a program on this computer \(a loopback address\)/);
  });

  test('an https redirect: its origin, no warning; a registered name is still only the client\'s claim', async () => {
    const html = await consentPageFor(listener, { client_name: 'Web agent' }, 'https://agent.example/oauth/callback');
    assert.equal(textOf(html, 'redirect-origin'), 'https://agent.example');
    assert.equal(textOf(html, 'redirect-warning'), undefined);
    assert.equal(textOf(html, 'client-name-source'), '(the name the app gives itself, not verified)');
  });
});
