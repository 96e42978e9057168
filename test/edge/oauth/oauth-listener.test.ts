import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { RunningListener } from '../../../listener/app.ts';
import { startTestListener, tempSqliteUrl } from '../../helpers/listener.ts';
import { releasedPort } from '../../helpers/ports.ts';
import { createLogger } from '../../../core/log.ts';
import { answerConsent, assertDiscovery, connectWithOAuth, CookieJar, REDIRECT_URL, registerPublicClient } from '../../helpers/oauth.ts';

const API_KEY = 'oauth-listener-test-key-0123456789';

const initializeBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const mcpPost = (url: string, headers: Record<string, string>, body = initializeBody) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
const formPost = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

describe('OAuth on the listener, with the MCP SDK client', () => {
  let listener: RunningListener;
  let mcpUrl: string;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
    mcpUrl = `${listener.url}/mcp`;
  });
  after(async () => {
    await listener?.stop();
  });

  /** Registers a public client with DCR and walks one authorization to a code. */
  async function codeFor(scope = 'invoices:read invoices:write', decision: 'approve' | 'deny' | null = 'approve', resource: string | null = mcpUrl) {
    const client_id = await registerPublicClient(listener.url, 'Manual');
    const { verifier, challenge } = pkce();
    const url = new URL(`${listener.url}/oauth/authorize`);
    url.search = new URLSearchParams({ client_id, response_type: 'code', redirect_uri: REDIRECT_URL, code_challenge: challenge, code_challenge_method: 'S256', ...(scope && { scope }), state: 'st', ...(resource && { resource }) }).toString();
    return { client_id, verifier, url, outcome: decision ? await answerConsent(url, API_KEY, decision) : null };
  }
  const exchange = (fields: Record<string, string>) => formPost(`${listener.url}/oauth/token`, { grant_type: 'authorization_code', redirect_uri: REDIRECT_URL, ...fields });

  test('no credentials: 401 with the Bearer challenge naming the metadata; the metadata names the endpoint and the issuer', async () => {
    const server = await assertDiscovery(listener.url, '/mcp');
    assert.equal(server.registration_endpoint, `${listener.url}/oauth/register`);
    assert.equal(server.revocation_endpoint, `${listener.url}/oauth/revoke`);
  });

  test('a valid key is never met with a challenge, in either header', async () => {
    for (const headers of [{ 'x-service-api-key': API_KEY }, { authorization: `Bearer ${API_KEY}` }] as Record<string, string>[]) {
      const response = await mcpPost(mcpUrl, headers);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('www-authenticate'), null);
    }
  });

  test('the Connected apps page: sign in with the key, see the grant, revoke it; the token then fails', async () => {
    const { provider, client } = await connectWithOAuth(mcpUrl, API_KEY);
    await client.close();
    const token = provider.savedTokens!.access_token;
    assert.equal((await (await fetch(`${listener.url}/oauth/apps`)).text()).includes('name="api_key"'), true);
    const wrong = await formPost(`${listener.url}/oauth/apps`, { api_key: 'wrong-key' });
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(await wrong.text(), /id="apps"/);
    const signedIn = await formPost(`${listener.url}/oauth/apps`, { api_key: API_KEY });
    const page = await signedIn.text();
    assert.equal(signedIn.status, 200);
    assert.match(page, /Test agent/);
    assert.ok(!page.includes(API_KEY), 'the key is not on the page');
    const pass = /name="pass" value="([^"]+)"/.exec(page)![1]!;
    const grantIds = [...page.matchAll(/name="grant_id" value="([^"]+)"/g)].map((m) => m[1]!);
    const forged = await formPost(`${listener.url}/oauth/apps/revoke`, { pass: `${pass.split('.')[0]}.forged`, grant_id: grantIds[0]! });
    assert.equal(forged.status, 403);
    for (const grantId of grantIds) assert.equal((await formPost(`${listener.url}/oauth/apps/revoke`, { pass, grant_id: grantId })).status, 200);
    const refused = await mcpPost(mcpUrl, { authorization: `Bearer ${token}` });
    assert.equal(refused.status, 401);
    assert.match(await (await formPost(`${listener.url}/oauth/apps`, { api_key: API_KEY })).text(), /id="no-apps"/);
  });

  test('SDK client: discovery, DCR, consent, code exchange, tools, refresh, revocation', async () => {
    const { client, provider } = await connectWithOAuth(mcpUrl, API_KEY);
    const created = await client.callTool({ name: 'create_invoice', arguments: { chain: 'btc', amount_sats: 1500 } });
    assert.ok(!created.isError, JSON.stringify(created.content));
    const invoiceId = (created.structuredContent as { invoice: { invoice_id: string } }).invoice.invoice_id;
    const status = await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoiceId } });
    assert.ok(!status.isError, JSON.stringify(status.content));
    const tokens = provider.savedTokens!;
    assert.ok(tokens.refresh_token);
    assert.ok(tokens.expires_in! <= 900);

    // Refresh rotates the refresh token: the old one no longer works.
    const refreshed = await formPost(`${listener.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: provider.clientInfo!.client_id, resource: mcpUrl });
    assert.equal(refreshed.status, 200);
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    assert.notEqual(next.refresh_token, tokens.refresh_token);
    assert.equal((await mcpPost(mcpUrl, { authorization: `Bearer ${next.access_token}` })).status, 200);

    // Revocation (RFC 7009): the revoked token is refused with invalid_token.
    const revoked = await formPost(`${listener.url}/oauth/revoke`, { token: next.access_token, client_id: provider.clientInfo!.client_id });
    assert.equal(revoked.status, 200);
    const refused = await mcpPost(mcpUrl, { authorization: `Bearer ${next.access_token}` });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /error="invalid_token"/);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'unauthorized');

    // A rotated-out refresh token used again fails, and revokes the grant: the latest refresh token too.
    const replayed = await formPost(`${listener.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: provider.clientInfo!.client_id, resource: mcpUrl });
    assert.equal(replayed.status, 400);
    assert.equal(((await replayed.json()) as { error: string }).error, 'invalid_grant');
    const afterReplay = await formPost(`${listener.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: provider.clientInfo!.client_id, resource: mcpUrl });
    assert.equal(afterReplay.status, 400);
    await client.close();
  });

  test('SDK client: when its access token has expired it refreshes by itself and goes on', async () => {
    const { client, provider } = await connectWithOAuth(mcpUrl, API_KEY);
    const first = provider.savedTokens!;
    // As if it had expired and been swept (revoking it would end the grant's refresh tokens too).
    await listener.database.db.deleteFrom('oauth_records').where('model', '=', 'AccessToken').execute();
    assert.equal((await mcpPost(mcpUrl, { authorization: `Bearer ${first.access_token}` })).status, 401);
    const listed = await client.callTool({ name: 'list_supported_assets', arguments: {} });
    assert.ok(!listed.isError, JSON.stringify(listed.content));
    assert.notEqual(provider.savedTokens!.access_token, first.access_token, 'a new access token');
    assert.notEqual(provider.savedTokens!.refresh_token, first.refresh_token, 'and a rotated refresh token');
    await client.close();
  });

  test('scopes: a read-only token reads but gets 403 insufficient_scope naming invoices:write on create', async () => {
    const { client_id, verifier, outcome } = await codeFor('invoices:read');
    const exchanged = await exchange({ code: outcome!.redirect.searchParams.get('code')!, client_id, code_verifier: verifier });
    const tokens = (await exchanged.json()) as { access_token: string; scope: string };
    assert.equal(tokens.scope, 'invoices:read');
    const session = await mcpPost(mcpUrl, { authorization: `Bearer ${tokens.access_token}` });
    const sessionId = session.headers.get('mcp-session-id')!;
    const call = await mcpPost(mcpUrl, { authorization: `Bearer ${tokens.access_token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_invoice', arguments: { chain: 'btc', amount_sats: 1 } } }));
    assert.equal(call.status, 403);
    assert.match(call.headers.get('www-authenticate')!, /error="insufficient_scope".*scope="invoices:write"/);
    assert.equal(((await call.json()) as { error: { code: string } }).error.code, 'insufficient_scope');
    const list = await mcpPost(mcpUrl, { authorization: `Bearer ${tokens.access_token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_invoice_status', arguments: { invoice_id: 'nope' } } }));
    assert.equal(list.status, 200);
  });

  test('a request naming no scope asks for all of them (RFC 6749 3.3): the consent page lists them, the token has them', async () => {
    for (const scope of ['', 'offline_access']) {
      const { client_id, verifier, outcome } = await codeFor(scope);
      assert.match(outcome!.consentPage, /<code>invoices:read<\/code>[\s\S]*<code>invoices:write<\/code>/);
      const code = outcome!.redirect.searchParams.get('code');
      assert.ok(code, `no code for scope "${scope}": ${outcome!.redirect.href}`);
      const tokens = (await (await exchange({ code, client_id, code_verifier: verifier })).json()) as { scope: string };
      assert.deepEqual(tokens.scope.split(' ').sort(), ['invoices:read', 'invoices:write']);
    }
  });

  test('deny redirects with access_denied; a wrong key issues nothing', async () => {
    const denied = await codeFor('invoices:read', 'deny');
    assert.equal(denied.outcome!.redirect.searchParams.get('error'), 'access_denied');
    assert.equal(denied.outcome!.redirect.searchParams.get('code'), null);
    const { url } = await codeFor('invoices:read', null);
    const wrong = await answerConsent(url, 'not-the-key', 'approve');
    assert.equal(wrong.consentStatus, 401);
    assert.equal(wrong.redirect.href, 'about:blank');
  });

  test('code exchange: missing or wrong verifier, another client, reuse (which revokes the first tokens)', async () => {
    const { client_id, verifier, outcome } = await codeFor();
    const code = outcome!.redirect.searchParams.get('code')!;
    const other = await codeFor();
    for (const fields of [{ code, client_id }, { code, client_id, code_verifier: pkce().verifier }, { code, client_id: other.client_id, code_verifier: verifier }] as Record<string, string>[]) {
      const response = await exchange(fields);
      assert.equal(response.status, 400, JSON.stringify(fields));
      const body = (await response.json()) as { error: string; error_description: string };
      assert.ok(['invalid_grant', 'invalid_request'].includes(body.error), body.error);
      assert.equal(typeof body.error_description, 'string');
    }
    // oidc-provider consumes a code at its first valid use only; failures above left it usable.
    const first = await exchange({ code, client_id, code_verifier: verifier });
    assert.equal(first.status, 200);
    const issued = (await first.json()) as { access_token: string };
    assert.equal((await mcpPost(mcpUrl, { authorization: `Bearer ${issued.access_token}` })).status, 200);
    const again = await exchange({ code, client_id, code_verifier: verifier });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
    assert.equal((await mcpPost(mcpUrl, { authorization: `Bearer ${issued.access_token}` })).status, 401);
  });

  test('resource: another server is refused; forged tokens are invalid_token', async () => {
    const { client_id, verifier, outcome } = await codeFor();
    const code = outcome!.redirect.searchParams.get('code')!;
    const elsewhere = await exchange({ code, client_id, code_verifier: verifier, resource: 'https://other.example/mcp' });
    assert.equal(elsewhere.status, 400);
    assert.equal(((await elsewhere.json()) as { error: string }).error, 'invalid_target');
    const forged = await mcpPost(mcpUrl, { authorization: `Bearer ${randomBytes(32).toString('base64url')}` });
    assert.equal(forged.status, 401);
    assert.match(forged.headers.get('www-authenticate')!, /error="invalid_token"/);
  });

  test('an authorization request without resource, or with an unregistered redirect_uri, issues nothing', async () => {
    const { url } = await codeFor('invoices:read', null, null);
    const missing = await fetch(url, { redirect: 'manual' });
    assert.equal(missing.status, 303);
    const to = new URL(missing.headers.get('location')!);
    assert.equal(to.origin + to.pathname, REDIRECT_URL);
    assert.equal(to.searchParams.get('error'), 'invalid_target');

    url.searchParams.set('redirect_uri', 'https://attacker.example/cb');
    url.searchParams.set('resource', mcpUrl);
    const unregistered = await fetch(url, { redirect: 'manual' });
    assert.equal(unregistered.status, 400);
    assert.equal(unregistered.headers.get('location'), null);
    assert.match(await unregistered.text(), /redirect_uri/);
  });

  test('the consent form refuses a missing or forged CSRF token, and throttles wrong keys', async () => {
    const { url } = await codeFor('invoices:read', null);
    const jar = new CookieJar();
    const consentUrl = new URL((await jar.fetch(url)).headers.get('location')!, url);
    await (await jar.fetch(consentUrl)).text();
    for (const csrf of ['', 'forged-token']) {
      const refused = await jar.fetch(consentUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, api_key: API_KEY, decision: 'approve' }).toString() });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('location'), null);
    }
    const page = await (await jar.fetch(consentUrl)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      const response = await jar.fetch(consentUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, api_key: `wrong-${i}`, decision: 'approve' }).toString() });
      statuses.push(response.status);
      await response.text();
    }
    // Twenty attempts a minute per address (the approvals of earlier tests count too), then 429.
    const firstThrottled = statuses.indexOf(429);
    assert.ok(firstThrottled >= 0 && firstThrottled <= 20, statuses.join(' '));
    assert.ok(statuses.slice(0, firstThrottled).every((s) => s === 401) && statuses.slice(firstThrottled).every((s) => s === 429), statuses.join(' '));
    const rightKeyWhileThrottled = await jar.fetch(consentUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, api_key: API_KEY, decision: 'approve' }).toString() });
    assert.equal(rightKeyWhileThrottled.status, 429);
    assert.equal(rightKeyWhileThrottled.headers.get('location'), null);
  });

  test('origins: a loopback page may call the loopback server, another site may not', async () => {
    const loopback = await mcpPost(mcpUrl, { 'x-service-api-key': API_KEY, origin: 'http://localhost:5173' });
    assert.equal(loopback.status, 200);
    assert.equal(loopback.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    const other = await mcpPost(mcpUrl, { 'x-service-api-key': API_KEY, origin: 'http://127.0.0.1.evil.example' });
    assert.equal(other.status, 403);
  });

  test('unknown scopes end with invalid_scope', async () => {
    const { outcome } = await codeFor('invoices:read invoices:delete');
    assert.equal(outcome!.redirect.searchParams.get('error'), 'invalid_scope');
  });

  test('DCR: 100 redirect URIs or a 10 KB name are refused in the OAuth error format', async () => {
    const register = (body: unknown) => fetch(`${listener.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const many = await register({ client_name: 'x', redirect_uris: Array.from({ length: 100 }, (_, i) => `http://127.0.0.1/cb${i}`), token_endpoint_auth_method: 'none' });
    assert.equal(many.status, 400);
    assert.equal(((await many.json()) as { error: string }).error, 'invalid_redirect_uri');
    const long = await register({ client_name: 'n'.repeat(10_000), redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' });
    assert.equal(long.status, 400);
    assert.equal(((await long.json()) as { error: string }).error, 'invalid_client_metadata');
  });

  test('malformed OAuth requests get 4xx answers, never a 500', async () => {
    const base = listener.url;
    const probes: [string, RequestInit][] = [
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }],
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&username=a&password=b' }],
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '%zz=%zz' }],
      ['/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' }],
      ['/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['javascript:alert(1)'] }) }],
      ['/oauth/revoke', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=x' }],
      ['/oauth/authorize?client_id=nope&response_type=code', { method: 'GET' }],
      ['/oauth/authorize?response_type=token', { method: 'GET' }],
      ['/oauth/consent/not-an-interaction', { method: 'GET' }],
      ['/oauth/consent/not-an-interaction', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'api_key=x' }],
      ['/oauth/authorize/not-an-interaction', { method: 'GET' }],
      ['/.well-known/oauth-protected-resource/elsewhere', { method: 'GET' }],
    ];
    for (const [path, init] of probes) {
      const response = await fetch(`${base}${path}`, { ...init, redirect: 'manual' });
      const text = await response.text();
      assert.ok(response.status >= 300 && response.status < 500, `${init.method} ${path}: ${response.status} ${text.slice(0, 200)}`);
      assert.doesNotMatch(text, /at \w+ \(|node_modules/, `${path} leaks a stack trace`);
    }
  });

  test('registrations from one address are throttled', async () => {
    const register = () => fetch(`${listener.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }) });
    let throttled: Response | null = null;
    for (let i = 0; i < 1000 && !throttled; i++) {
      const response = await register();
      if (response.status === 429) throttled = response;
      else await response.arrayBuffer();
    }
    assert.ok(throttled, 'no 429 within 1000 registrations');
    assert.equal(((await throttled.json()) as { error: string }).error, 'too_many_requests');
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);
  });
});

describe('changing SERVICE_API_KEY ends the grants approved with the old one', () => {
  test('a restart with the same key keeps the grant; with a new key the token is refused, the refresh fails, the rows are gone', async () => {
    // One port throughout: the tokens are bound to the MCP endpoint's URL.
    const env = { SERVICE_API_KEY: API_KEY, DATABASE_URL: tempSqliteUrl(), PORT: String(await releasedPort()) };
    let listener = await startTestListener({ env });
    const { client, provider } = await connectWithOAuth(`${listener.url}/mcp`, API_KEY);
    await client.close();
    const { access_token, refresh_token } = provider.savedTokens!;
    const stored = await listener.database.db.selectFrom('oauth_records').select(['key_id']).where('model', '=', 'Grant').execute();
    assert.equal(stored.length, 1);
    assert.ok(stored[0]!.key_id && !stored[0]!.key_id.includes(API_KEY), 'the grant records a fingerprint of the key, never the key');
    await listener.stop();

    listener = await startTestListener({ env });
    try {
      assert.equal((await mcpPost(`${listener.url}/mcp`, { authorization: `Bearer ${access_token}` })).status, 200, 'same key: the grant lives on');
    } finally {
      await listener.stop();
    }

    listener = await startTestListener({ env: { ...env, SERVICE_API_KEY: 'a-new-key-after-the-leak-0123456789' } });
    try {
      const refused = await mcpPost(`${listener.url}/mcp`, { authorization: `Bearer ${access_token}` });
      assert.equal(refused.status, 401);
      const refreshed = await formPost(`${listener.url}/oauth/token`, { grant_type: 'refresh_token', refresh_token: refresh_token!, client_id: provider.clientInfo!.client_id, resource: `${listener.url}/mcp` });
      assert.equal(refreshed.status, 400);
      assert.equal(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
      const left = await listener.database.db.selectFrom('oauth_records').select('model').where('model', 'in', ['Grant', 'AccessToken', 'RefreshToken']).execute();
      assert.deepEqual(left, [], 'the old grant and its tokens are deleted at start');
    } finally {
      await listener.stop();
    }
  });
});

describe('OAuth off on a listener without SERVICE_API_KEY', () => {
  test('/mcp stays open and no metadata is served', async () => {
    const listener = await startTestListener();
    try {
      assert.equal((await mcpPost(`${listener.url}/mcp`, {})).status, 200);
      assert.equal((await fetch(`${listener.url}/.well-known/oauth-protected-resource/mcp`)).status, 404);
      assert.equal((await fetch(`${listener.url}/.well-known/oauth-authorization-server`)).status, 404);
    } finally {
      await listener.stop();
    }
  });
});

describe('PUBLIC_URL', () => {
  test('names the issuer and the resource, and its origin may call /mcp', async () => {
    const listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY, PUBLIC_URL: 'https://pay.example/' } });
    try {
      const challenge = (await mcpPost(`${listener.url}/mcp`, {})).headers.get('www-authenticate');
      assert.match(challenge!, /resource_metadata="https:\/\/pay\.example\/\.well-known\/oauth-protected-resource\/mcp"/);
      const metadata = (await (await fetch(`${listener.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
      assert.equal(metadata.resource, 'https://pay.example/mcp');
      assert.deepEqual(metadata.authorization_servers, ['https://pay.example']);
      assert.equal((await mcpPost(`${listener.url}/mcp`, { 'x-service-api-key': API_KEY, origin: 'https://pay.example' })).status, 200);
    } finally {
      await listener.stop();
    }
  });

  test('without it, a server off loopback offers no OAuth (and says so in its log)', async () => {
    const lines: string[] = [];
    const listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY, HOST: '0.0.0.0' }, logger: createLogger({ write: (line) => lines.push(line) }) });
    try {
      const url = `http://127.0.0.1:${new URL(listener.url).port}`;
      const response = await mcpPost(`${url}/mcp`, {});
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), null);
      assert.equal((await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)).status, 404);
      assert.ok(lines.some((line) => line.includes('set PUBLIC_URL')));
    } finally {
      await listener.stop();
    }
  });
});
